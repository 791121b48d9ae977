import Foundation

/// A plain-text table for the commands' output: a header, columns padded to their widest cell, two spaces apart,
/// numbers and money aligned right.
public enum TextTable {
    /// `rows` under `header`; the columns in `rightAligned` (by index) line up on their right edge.
    public static func render(header: [String], rows: [[String]], rightAligned: Set<Int>) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { cells in
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}

/// A command's `--json` document as it prints it: indented, keys sorted, slashes as they are.
public func jsonText(_ document: [String: Any]) throws -> String {
    String(
        decoding: try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]), as: UTF8.self
    )
}
