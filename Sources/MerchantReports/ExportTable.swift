import Foundation

/// One value of an export: text as it is, or a whole number (money in minor units, counts).
public enum ExportCell: Hashable, Sendable {
    case text(String)
    case integer(Int64)
}

/// How an export is written: CSV (RFC 4180) for spreadsheets, or JSON for programs.
public enum ExportFormat: String, CaseIterable, Sendable {
    case csv, json
}

/// Writes a table row by row, as CSV or as a JSON document, through `write` (a file or standard output): a year of
/// orders is never held whole.
///
/// Order of calls: `begin` → `row` for each row → `end`.
public struct ExportWriter {
    public let format: ExportFormat
    public let columns: [String]
    /// The JSON document's fields before its rows (`"report": "tax"`, the period); not written in CSV.
    public let header: [String: String]
    private let write: (String) throws -> Void
    private var rows = 0

    public init(format: ExportFormat, columns: [String], header: [String: String] = [:], write: @escaping (String) throws -> Void) {
        self.format = format
        self.columns = columns
        self.header = header
        self.write = write
    }

    public mutating func begin() throws {
        switch format {
        case .csv: try write(CSV.record(columns.map(ExportCell.text)))
        case .json:
            let fields =
                (header.sorted { $0.key < $1.key }.map { "\(JSONText.string($0.key)): \(JSONText.string($0.value))" }) + [
                    "\"version\": 1"
                ]
            try write("{" + fields.joined(separator: ", ") + ", \"rows\": [\n")
        }
    }

    public mutating func row(_ cells: [ExportCell]) throws {
        precondition(cells.count == columns.count, "a row of \(cells.count) cells for \(columns.count) columns")
        switch format {
        case .csv: try write(CSV.record(cells))
        case .json:
            let fields = zip(columns, cells).map { column, cell -> String in
                switch cell {
                case .text(let text): "\(JSONText.string(column)): \(JSONText.string(text))"
                case .integer(let number): "\(JSONText.string(column)): \(number)"
                }
            }
            try write((rows == 0 ? "" : ",\n") + "{" + fields.joined(separator: ", ") + "}")
        }
        rows += 1
    }

    public func end() throws {
        if format == .json { try write("\n]}\n") }
    }

    /// `begin`, each row `produce` hands over as it reads them, then `end`; returns how many rows it wrote.
    mutating func streaming(_ produce: ((_ row: [ExportCell]) throws -> Void) async throws -> Void) async throws -> Int {
        try begin()
        var count = 0
        try await produce { cells in
            try row(cells)
            count += 1
        }
        try end()
        return count
    }
}

/// RFC 4180: records end in CRLF; a field with a comma, a quote, a CR or an LF is quoted, its quotes doubled.
public enum CSV {
    /// The characters a spreadsheet reads a formula from at a cell's start (OWASP's list): such a text cell gets a `'`
    /// before it, so `=HYPERLINK(…)` in a name is shown, never run.
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r", "\r\n"]

    public static func record(_ cells: [ExportCell]) -> String {
        cells.map(field).joined(separator: ",") + "\r\n"
    }

    static func field(_ cell: ExportCell) -> String {
        switch cell {
        case .integer(let number): return String(number)
        case .text(let text):
            let safe = text.first.map { formulaStarts.contains($0) } == true ? "'" + text : text
            guard safe.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return safe }
            return "\"" + safe.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
    }
}

/// JSON's string syntax, for rows and log lines written one at a time: quotes, backslashes and every control
/// character (C0, DEL, C1) escaped; the rest as it is (UTF-8).
public enum JSONText {
    public static func string(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value):
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
