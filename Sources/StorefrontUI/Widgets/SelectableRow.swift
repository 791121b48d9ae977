extension Painter {
    /// Draws a list row's selection band and marker, and makes the band clickable; returns the style for the row's text.
    /// - Parameters:
    ///   - band: the first column of the band; the marker goes at `marker`, which defaults to it.
    ///   - fromSelected: how many rows below (or above, negative) the selected row this one is; 0 draws it selected.
    ///   - opens: whether Enter on the selected row opens it, so a click on it does.
    @discardableResult
    mutating func selectableRow(row: Int, band: Int, width: Int, marker: Int? = nil, fromSelected: Int, opens: Bool = true, showsMarker: Bool = true)
        -> Style
    {
        let isSelected = fromSelected == 0
        let style = isSelected ? Style(.selection, bold: true) : .normal
        if isSelected { fill(row: row, column: band, width: width, style: style) }
        if showsMarker { put(isSelected ? glyphs.marker : " ", column: marker ?? band, row: row, style: style) }
        listRowTarget(row: row, band: band, width: width, fromSelected: fromSelected, opens: opens)
        return style
    }

    /// Makes a list row's band clickable, as `selectableRow` does for a row it draws.
    mutating func listRowTarget(row: Int, band: Int, width: Int, fromSelected: Int, opens: Bool = true) {
        target(.listRow(offset: fromSelected, opens: opens), row: row, columns: band..<(band + max(0, width)))
    }
}
