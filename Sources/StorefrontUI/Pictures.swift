import ShopModels

/// How a terminal shows a product's picture.
public enum PictureSupport: String, Sendable, Hashable, CaseIterable {
    /// The product's art, in the shop's colours or none: `NO_COLOR`, `--theme mono`, an ASCII terminal, 8 colours.
    case art
    /// A mosaic of block symbols in the 240-colour palette, drawn as text: every 256-colour terminal, and what
    /// headless runs, recordings and snapshots show.
    case mosaic
    /// Pixels, in DEC's sixel (xterm `-ti vt340`, foot, WezTerm, Konsole, Windows Terminal).
    case sixel
    /// Pixels, in kitty's graphics protocol (kitty, Ghostty, Konsole): each image sent once, then placed by id.
    case kitty
    /// Pixels, in iTerm2's inline images (iTerm2, WezTerm, mintty).
    case iterm2

    /// The layout reserves a picture's cells: everything but art.
    public var showsPictures: Bool { self != .art }

    /// The protocol pictures are drawn in, where they are drawn as pixels; nil for text.
    public var graphics: TerminalGraphics? {
        switch self {
        case .art, .mosaic: nil
        case .sixel: .sixel
        case .kitty: .kitty
        case .iterm2: .iterm2
        }
    }
}

/// A terminal cell's size in pixels, which pictures drawn as pixels are scaled to.
public struct CellPixels: Hashable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// What a terminal that does not say is taken to have.
    public static let usual = CellPixels(width: 10, height: 20)
}

/// Where a frame shows a picture: the layout reserves the cells, and the host draws the picture in them once it has
/// it (`Frame.draw(_:in:)`); until then they stay blank, so a list never waits for a picture.
public struct PictureSlot: Hashable, Sendable {
    /// The stored picture's SHA-256.
    public var digest: String
    public var column: Int
    public var row: Int
    public var columns: Int
    public var rows: Int

    public init(digest: String, column: Int, row: Int, columns: Int, rows: Int) {
        self.digest = digest
        self.column = column
        self.row = row
        self.columns = columns
        self.rows = rows
    }

    /// The picture's box at most `columns` × `rows` cells, in its own proportions: a cell is about twice as tall as it
    /// is wide. Nil when the picture would be too small to make out (under 8 × 4 cells).
    public static func fitting(_ picture: PictureReference, columns: Int, rows: Int) -> (columns: Int, rows: Int)? {
        guard picture.width > 0, picture.height > 0, columns >= 8, rows >= 4 else { return nil }
        var width = columns
        var height = Int((Double(width) * Double(picture.height) / Double(picture.width) / 2).rounded())
        if height > rows {
            height = rows
            width = min(columns, Int((Double(height) * 2 * Double(picture.width) / Double(picture.height)).rounded()))
        }
        guard width >= 8, height >= 4 else { return nil }
        return (width, height)
    }
}

extension Frame {
    /// Draws `mosaic` in `slot`'s cells, clipped to the frame; a mosaic of another size is not drawn.
    /// (A terminal that draws pixels keeps the slot's cells blank: the picture's bytes go in `pictureGraphics`.)
    public mutating func draw(_ mosaic: PictureMosaic, in slot: PictureSlot) {
        guard mosaic.columns == slot.columns, mosaic.rows == slot.rows, charset == .unicode else { return }
        for y in 0..<slot.rows where slot.row + y >= 0 && slot.row + y < size.rows {
            for x in 0..<slot.columns where slot.column + x >= 0 && slot.column + x < size.columns {
                packed[(slot.row + y) * size.columns + slot.column + x] = PackedCell(picture: mosaic[x, y])
            }
        }
    }
}

extension Painter {
    /// Reserves `columns` × `rows` cells at (`column`, `row`) for the picture `digest`: blank until the host draws it.
    mutating func reservePicture(_ digest: String, column: Int, row: Int, columns: Int, rows: Int) {
        frame.fill(row: row, column: column, width: columns, height: rows)
        frame.pictureSlots.append(PictureSlot(digest: digest, column: column, row: row, columns: columns, rows: rows))
    }
}
