import LiveObjects
import StorefrontUI

extension FrameEncoder {
    // MARK: - Text

    mutating func appendText(of cell: PackedCell, in frame: Frame, span: Int) {
        if cell.isASCII {
            output.append(UInt8(truncatingIfNeeded: cell.code))
            return
        }
        if frame.charset == .ascii {
            // Cannot happen in an ASCII frame; a placeholder per column keeps the row aligned if it ever does.
            output.append(contentsOf: repeatElement(0x3F, count: span))
            return
        }
        if !cell.isCluster, let scalar = Unicode.Scalar(cell.code), width(cell.code) == span {
            // Its UTF-8 bytes straight into the output: no String is made for the cell.
            UTF8.encode(scalar) { output.append($0) }
            return
        }
        for piece in CellPieces.pieces(of: frame.text(of: cell), columns: span, width: { width($0.value) }) {
            output.append(contentsOf: piece.text.utf8)
        }
    }

    /// ESC [, the start of every control sequence the encoder writes.
    mutating func appendCSI() {
        output.append(0x1B)
        output.append(0x5B)
    }

    /// The SGR into a picture's `colors` (foreground × 256 + background) from `previous` picture colours, or from a
    /// role's pen (nil). From another picture's pen only the colour that changed; from a role's, a reset first (bold,
    /// underline, reverse). Byte by byte, with no array made: a picture's row changes pen at nearly every cell.
    mutating func appendPictureSGR(_ colors: Int, from previous: Int?) {
        let foreground = colors >> 8
        let background = colors & 0xFF
        appendCSI()
        if previous == nil {
            output.append(0x30)
            output.append(0x3B)
        }
        let changesForeground = previous.map { $0 >> 8 != foreground } ?? true
        if changesForeground { appendPaletteColor(38, foreground) }
        if previous.map({ $0 & 0xFF != background }) ?? true {
            if changesForeground { output.append(0x3B) }
            appendPaletteColor(48, background)
        }
        output.append(0x6D)
    }

    /// `38;5;N` or `48;5;N`: a foreground or background from the 256-colour palette, inside an SGR.
    mutating func appendPaletteColor(_ layer: Int, _ index: Int) {
        appendDecimal(layer)
        output.append(0x3B)
        output.append(0x35)
        output.append(0x3B)
        appendDecimal(index)
    }

    mutating func appendDecimal(_ value: Int) {
        if value >= 10 { appendDecimal(value / 10) }
        output.append(0x30 + UInt8(value % 10))
    }

    static func digits(_ value: Int) -> Int {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }
}

/// The C library's width of each scalar a frame draws, remembered: `wcwidth` reads the locale's tables at every call,
/// and a picture's rows ask it for each of their block symbols.
final class ScalarWidths: LiveObject {
    private let measure: (UInt32) -> Int
    /// Direct-mapped by the scalar's low byte: the scalar in the high 32 bits, its width + 2 in the low (0: empty).
    private var entries = [UInt64](repeating: 0, count: 256)

    init(_ measure: @escaping (UInt32) -> Int) { self.measure = measure }

    /// `measure(code)`, asked once per scalar while no other scalar of the same low byte comes between.
    func width(of code: UInt32) -> Int {
        let slot = Int(code & 0xFF)
        let entry = entries[slot]
        if entry != 0, UInt32(truncatingIfNeeded: entry >> 32) == code { return Int(entry & 0xFFFF_FFFF) - 2 }
        let width = measure(code)
        guard width >= -1 else { return width }
        entries[slot] = UInt64(code) << 32 | UInt64(truncatingIfNeeded: width + 2)
        return width
    }
}
