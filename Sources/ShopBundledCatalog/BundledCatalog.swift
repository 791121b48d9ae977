/// The catalog the storefront runs on when no --catalog is given: `assets/catalog.json` (linked here as `Resources/catalog.json`), embedded in the binary.
public enum BundledCatalog {
    public static let json = EmbeddedText.catalog_json
}
