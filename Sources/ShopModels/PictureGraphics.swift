/// A picture drawn as pixels in a terminal that draws them.
public enum PictureGraphics: Hashable, Sendable {
    /// Bytes written at the slot's top-left cell each time the picture is placed (sixel).
    case inline([UInt8])
    /// An image a terminal keeps by id (kitty's protocol): sent to it once, then placed by id at `placement`.
    case kitty(KittyImage, placement: KittyPlacement)

    /// The bytes it holds, for a cache's count.
    public var byteCount: Int {
        switch self {
        case .inline(let bytes): bytes.count
        case .kitty(let image, _): image.payload.count
        }
    }
}

/// A picture's pixels as kitty's protocol sends them: 32-bit RGBA, deflated (`o=z`), in base64.
public struct KittyImage: Hashable, Sendable {
    /// The stored picture's SHA-256: a terminal that holds this image is not sent it again.
    public var digest: String
    public var width: Int
    public var height: Int
    public var payload: [UInt8]

    public init(digest: String, width: Int, height: Int, payload: [UInt8]) {
        self.digest = digest
        self.width = width
        self.height = height
        self.payload = payload
    }

    /// Where the image goes in a slot of `columns` × `rows` cells of `cellWidth` × `cellHeight` pixels: the largest box in its own
    /// proportions, centred, in whole cells (the terminal scales the image to the cells it is placed in).
    public func placement(columns: Int, rows: Int, cellWidth: Int, cellHeight: Int) -> KittyPlacement {
        guard width > 0, height > 0, cellWidth > 0, cellHeight > 0 else {
            return KittyPlacement(column: 0, row: 0, columns: columns, rows: rows)
        }
        let scale = min(Double(columns * cellWidth) / Double(width), Double(rows * cellHeight) / Double(height))
        let placed = (
            columns: min(columns, max(1, Int((Double(width) * scale / Double(cellWidth)).rounded()))),
            rows: min(rows, max(1, Int((Double(height) * scale / Double(cellHeight)).rounded())))
        )
        return KittyPlacement(column: (columns - placed.columns) / 2, row: (rows - placed.rows) / 2, columns: placed.columns, rows: placed.rows)
    }
}

/// Where an image is placed in its slot, in cells from the slot's top-left cell.
public struct KittyPlacement: Hashable, Sendable {
    public var column: Int
    public var row: Int
    public var columns: Int
    public var rows: Int

    public init(column: Int, row: Int, columns: Int, rows: Int) {
        self.column = column
        self.row = row
        self.columns = columns
        self.rows = rows
    }
}
