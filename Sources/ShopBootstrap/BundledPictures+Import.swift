import ShopBundledCatalog
import ShopPictures

extension BundledPictures {
    /// The bundled catalog's pictures read from the binary, as files beside a catalog are read.
    public static let catalogImport = CatalogPictureImport { path in bytes(of: path) }
}
