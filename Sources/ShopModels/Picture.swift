/// A product's or a variant's picture as the catalog names it: the file it came from, what its bytes hash to (SHA-256,
/// lowercase hex, which is how the shop stores and serves it) and its size in pixels.
public struct PictureReference: Hashable, Sendable, Codable {
    /// The file's path beside the catalog file ("pictures/mug.png"); export writes it there again.
    public var file: String
    public var digest: String
    public var width: Int
    public var height: Int

    public init(file: String, digest: String, width: Int, height: Int) {
        self.file = file
        self.digest = digest
        self.width = width
        self.height = height
    }
}

/// A picture drawn in character cells: one symbol per cell with a foreground and a background from the 240-colour
/// palette (xterm's 16 to 255), row after row. What every text front shows, and what snapshots record.
public struct PictureMosaic: Hashable, Sendable {
    public let columns: Int
    public let rows: Int
    public let cells: [MosaicCell]

    public init(columns: Int, rows: Int, cells: [MosaicCell]) {
        precondition(cells.count == columns * rows, "a mosaic has one cell per column and row")
        self.columns = columns
        self.rows = rows
        self.cells = cells
    }

    public subscript(column: Int, row: Int) -> MosaicCell { cells[row * columns + column] }
}

/// One cell of a mosaic.
public struct MosaicCell: Hashable, Sendable, BitwiseCopyable {
    public var symbol: UInt32
    public var foreground: UInt8
    public var background: UInt8

    public init(symbol: UInt32, foreground: UInt8, background: UInt8) {
        self.symbol = symbol
        self.foreground = foreground
        self.background = background
    }
}

extension Product {
    /// Its own pictures, then its variants'.
    public var pictureReferences: [PictureReference] { pictures + variants.flatMap(\.pictures) }
}

extension Catalog {
    /// Every picture its products and their variants name, in catalog order, a picture named twice listed twice.
    public var pictureReferences: [PictureReference] { products.flatMap(\.pictureReferences) }
}

/// A terminal's protocol for drawing pixels in its cells.
public enum TerminalGraphics: String, Sendable, Hashable, CaseIterable {
    /// DEC's sixel: xterm (`-ti vt340`), foot, WezTerm, Konsole, Windows Terminal, mlterm.
    case sixel
    /// kitty's graphics protocol: kitty, Ghostty, Konsole. Images are sent once and placed again by id.
    case kitty
    /// iTerm2's inline images (OSC 1337): iTerm2, WezTerm, mintty.
    case iterm2
}
