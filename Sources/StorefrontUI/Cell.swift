import ShopModels

/// What a cell means; the backend maps roles to colours or, without colour, to attributes.
public enum StyleRole: UInt8, Hashable, Sendable, CaseIterable {
    case normal, header, title, dim, accent, price, selection, error, success, art, border, key
    /// A QR code's modules: dark on light in every palette, as phones read them best.
    case qrCode
    /// A picture's mosaic: its cell carries its own colours from the 240-colour palette (`PackedCell.pictureColors`).
    case picture
}

/// How a cell is drawn.
public struct Style: Hashable, Sendable {
    public var role: StyleRole
    public var bold: Bool
    public var underline: Bool

    public init(_ role: StyleRole = .normal, bold: Bool = false, underline: Bool = false) {
        self.role = role
        self.bold = bold
        self.underline = underline
    }

    public static let normal = Style()

    /// The style as a packed cell's low bits.
    var bits: UInt32 {
        UInt32(role.rawValue) | (bold ? PackedCell.boldBit : 0) | (underline ? PackedCell.underlineBit : 0)
    }
}

/// One character cell as read from a frame: a grapheme, or empty when it continues the wide grapheme to its left.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: Style
    public init(text: String, style: Style) {
        self.text = text
        self.style = style
    }

    public static let blank = Cell(text: " ", style: .normal)
    public var isContinuation: Bool { text.isEmpty }
}

/// A cell as a frame stores it: eight bytes and no references, so a row compares as plain memory and
/// a frame is filled without making a `String` per cell.
public struct PackedCell: Hashable, Sendable, BitwiseCopyable {
    /// A scalar's value; with `isCluster`, an index into the frame's clusters; 0 for the right half of a wide character.
    public var code: UInt32
    /// The style's role in the low byte, then the bold, underline, wide and cluster flags.
    public var bits: UInt32

    static let boldBit: UInt32 = 1 << 8
    static let underlineBit: UInt32 = 1 << 9
    static let wideBit: UInt32 = 1 << 10
    static let clusterBit: UInt32 = 1 << 11
    static let styleMask: UInt32 = 0x3FF
    /// A picture cell's foreground and background palette indices, bits 12–19 and 20–27.
    static let pictureShift: UInt32 = 12

    static let blank = PackedCell(code: 0x20, bits: 0)

    /// The role of the cell's style.
    public var role: StyleRole { StyleRole(rawValue: UInt8(truncatingIfNeeded: bits)) ?? .normal }
    public var isBold: Bool { bits & Self.boldBit != 0 }
    public var isUnderlined: Bool { bits & Self.underlineBit != 0 }
    /// The left half of a character two columns wide.
    public var isWide: Bool { bits & Self.wideBit != 0 }
    /// A grapheme of more than one scalar, kept in the frame's clusters.
    public var isCluster: Bool { bits & Self.clusterBit != 0 }
    /// The right half of a wide character: nothing of its own to draw.
    public var isContinuation: Bool { code == 0 && !isCluster }
    /// One byte, one column, nothing to look up.
    public var isASCII: Bool { code < 0x80 && code != 0 && !isCluster }
    var style: Style { Style(role, bold: isBold, underline: isUnderlined) }
}

extension PackedCell {
    /// A mosaic's cell: its symbol, drawn in its own colours.
    init(picture cell: MosaicCell) {
        code = cell.symbol
        bits = UInt32(StyleRole.picture.rawValue) | UInt32(cell.foreground) << Self.pictureShift | UInt32(cell.background) << (Self.pictureShift + 8)
    }

    /// A picture cell's foreground and background from the 256-colour palette; nil for any other cell.
    public var pictureColors: (foreground: UInt8, background: UInt8)? {
        guard role == .picture else { return nil }
        return (UInt8(truncatingIfNeeded: bits >> Self.pictureShift), UInt8(truncatingIfNeeded: bits >> (Self.pictureShift + 8)))
    }
}

/// Which characters the terminal can show.
public enum Charset: Hashable, Sendable, CustomStringConvertible {
    case unicode
    /// The locale is not UTF-8: every cell is plain ASCII.
    case ascii

    public var description: String { self == .ascii ? "ascii" : "unicode" }
}
