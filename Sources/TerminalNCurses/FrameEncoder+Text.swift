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
            output.append(contentsOf: String(scalar).utf8)
            return
        }
        for piece in CellPieces.pieces(of: frame.text(of: cell), columns: span, width: { width($0.value) }) {
            output.append(contentsOf: piece.text.utf8)
        }
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
