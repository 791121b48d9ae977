extension Painter {
    /// Draws a list row's selection band and marker; returns the style for the row's text.
    /// - Parameters:
    ///   - band: the first column of the band; the marker goes at `marker`, which defaults to it.
    @discardableResult
    mutating func selectableRow(row: Int, band: Int, width: Int, marker: Int? = nil, isSelected: Bool, showsMarker: Bool = true) -> Style {
        let style = isSelected ? Style(.selection, bold: true) : .normal
        if isSelected { fill(row: row, column: band, width: width, style: style) }
        if showsMarker { put(isSelected ? glyphs.marker : " ", column: marker ?? band, row: row, style: style) }
        return style
    }
}
