/// A question in a box over the bottom of the body: what a change will do, before Enter makes it.
extension Painter {
    mutating func promptBox(_ lines: [String], title: String, isWorking: Bool, spinnerPhase: Int, bottom: Int, width available: Int) {
        let width = min(available - 2, 86)
        let rows =
            lines.flatMap { wrapped($0, width: width - 4) } + [
                isWorking ? "\(glyphs.spinner[spinnerPhase % glyphs.spinner.count]) Working…" : "Enter: yes    Esc: no"
            ]
        let height = rows.count + 2
        let top = max(2, bottom - height)
        let column = 1
        for row in top..<(top + height) { fill(row: row, column: column, width: width, style: .normal) }
        box(column: column, row: top, width: width, height: height, title: title)
        for (offset, line) in rows.enumerated() where top + 1 + offset < top + height - 1 {
            put(line, column: column + 2, row: top + 1 + offset, style: offset == 0 ? Style(.title, bold: true) : .normal, width: width - 4)
        }
    }
}
