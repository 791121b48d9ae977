/// The catalog the storefront runs on when no --catalog is given: `assets/catalog.json` (linked here as `Resources/catalog.json`), embedded in the binary.
public enum BundledCatalog {
    public static let json = EmbeddedText.catalog_json
}

/// The exchange rates the bundled catalog's markets sell at when no `shop.rates` is set: `assets/rates.xml`, sample
/// figures in the ECB's format, embedded in the binary.
public enum BundledRates {
    public static let xml = EmbeddedText.rates_xml
}
