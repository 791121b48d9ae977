/// A QR code: a square of dark and light modules, row by row, without its quiet zone.
public struct QRCode: Hashable, Sendable {
    /// Modules per side.
    public var size: Int
    /// `size * size` modules, row-major; true is dark.
    public var modules: [Bool]

    public init(size: Int, modules: [Bool]) {
        precondition(modules.count == size * size, "a QR code has size × size modules")
        self.size = size
        self.modules = modules
    }

    public func isDark(row: Int, column: Int) -> Bool {
        guard row >= 0, column >= 0, row < size, column < size else { return false }
        return modules[row * size + column]
    }
}

/// Makes QR codes, so a phone can open a link shown in the terminal.
public protocol QRCodeMaking: Sendable {
    /// `text` as a QR code, or nil when it cannot be encoded (too long).
    func qrCode(for text: String) -> QRCode?
}
