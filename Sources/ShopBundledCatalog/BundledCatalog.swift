import Foundation

/// The catalog the storefront runs on when no --catalog is given: `assets/catalog.json` (linked here as `Resources/catalog.json`), embedded in the binary.
public enum BundledCatalog {
    public static let json = EmbeddedText.catalog_json
}

/// The exchange rates the bundled catalog's markets sell at when no `shop.rates` is set: `assets/rates.xml`, sample
/// figures in the ECB's format, embedded in the binary.
public enum BundledRates {
    public static let xml = EmbeddedText.rates_xml
}

/// The bundled catalog's pictures, `assets/pictures/*.png` (drawn by `scripts/draw-catalog-pictures`), embedded in the binary.
public enum BundledPictures {
    /// The bytes of the picture the bundled catalog names as `path` ("pictures/mug-stdout.png"); nil for any other.
    public static func bytes(of path: String) -> [UInt8]? {
        guard path.hasPrefix("pictures/"), let encoded = EmbeddedText.pngFiles[String(path.dropFirst("pictures/".count))],
            let data = Data(base64Encoded: encoded)
        else { return nil }
        return [UInt8](data)
    }
}
