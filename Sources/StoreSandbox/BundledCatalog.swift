/// The catalog the storefront runs on when no --catalog is given: `Resources/catalog.json`, embedded in the binary.
public enum BundledCatalog {
    public static let json = String(decoding: PackageResources.catalog_json, as: UTF8.self)
}
