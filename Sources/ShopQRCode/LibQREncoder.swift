import CQRencode
import ShopPorts

/// QR codes from libqrencode (Debian's `libqrencode-dev`): byte mode, error correction level M, the smallest
/// version that holds the text.
public struct LibQREncoder: QRCodeMaking {
    public init() {}

    public func qrCode(for text: String) -> QRCode? {
        // Case-sensitive byte mode: a URL's path and query keep their case.
        guard let encoded = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(encoded) }
        let size = Int(encoded.pointee.width)
        guard size > 0, let data = encoded.pointee.data else { return nil }
        // Bit 0 of each byte is the module's colour; the other bits say what kind of module it is.
        let modules = (0..<(size * size)).map { data[$0] & 1 == 1 }
        return QRCode(size: size, modules: modules)
    }
}
