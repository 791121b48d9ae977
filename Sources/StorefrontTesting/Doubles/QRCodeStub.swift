import ShopPorts

/// QR codes without libqrencode: a fixed pattern whose size follows the text's length, so a frame with one is
/// the same on every machine.
public struct QRCodeStub: QRCodeMaking {
    public init() {}

    public func qrCode(for text: String) -> QRCode? {
        // Version 1 is 21 modules a side, and each version adds 4; about 14 characters a version is near enough.
        let size = 21 + 4 * min(39, text.utf8.count / 14)
        let modules = (0..<(size * size)).map { index in
            let (row, column) = index.quotientAndRemainder(dividingBy: size)
            return Self.isFinder(row, column, size) || (row + column).isMultiple(of: 3)
        }
        return QRCode(size: size, modules: modules)
    }

    /// The three corner squares every QR code has.
    private static func isFinder(_ row: Int, _ column: Int, _ size: Int) -> Bool {
        for (top, left) in [(0, 0), (0, size - 7), (size - 7, 0)] where (top..<top + 7).contains(row) && (left..<left + 7).contains(column) {
            let (r, c) = (row - top, column - left)
            return r == 0 || r == 6 || c == 0 || c == 6 || ((2...4).contains(r) && (2...4).contains(c))
        }
        return false
    }
}
