extension Painter {
    /// Draws the spinner's frame for `phase` and a space at `column`; returns the columns used.
    mutating func spinner(phase: Int, column: Int, row: Int) -> Int {
        let frames = glyphs.spinner
        return put(frames[phase % frames.count] + " ", column: column, row: row, style: Style(.accent))
    }
}
