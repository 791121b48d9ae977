import ShopPorts

/// QR codes a test did not set up: making one fails the test.
public struct UnimplementedQRCodes: QRCodeMaking {
    public init() {}

    public func qrCode(for text: String) -> QRCode? {
        unimplemented("QRCodeMaking", "qrCode(for:)")
        return nil
    }
}
