import Foundation
import ShopModels
import ShopPorts

/// Reads the pictures a catalog names, checks each within `PictureLimits.upload` and measures it, so a bad file is
/// refused at import with the product and the picture named, and a session only ever decodes pictures that passed.
public struct CatalogPictureImport: Sendable {
    /// The bytes of a picture file the catalog names, or nil when there is no such file.
    let read: @Sendable (String) throws(CatalogPictureReadFailure) -> [UInt8]?

    public init(read: @escaping @Sendable (String) throws(CatalogPictureReadFailure) -> [UInt8]?) {
        self.read = read
    }

    /// Files beside the catalog file: paths are relative to its folder (the loader keeps them inside it).
    public static func files(beside catalogFile: URL) -> CatalogPictureImport {
        let folder = catalogFile.deletingLastPathComponent()
        return CatalogPictureImport { (path: String) throws(CatalogPictureReadFailure) -> [UInt8]? in
            try readFile(folder.appending(path: path))
        }
    }

    /// A picture file's bytes, or nil when there is no such file: only a regular file, and its size checked before any
    /// of it is read.
    public static func readFile(_ url: URL) throws(CatalogPictureReadFailure) -> [UInt8]? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        // A FIFO would be read until its writer stops; a large file is refused before it is read.
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw .init("is not a regular file") }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= PictureLimits.upload.maximumBytes else {
            throw .init(PictureRefusal(.tooManyBytes, "\(size) bytes is more than the \(PictureLimits.upload.maximumBytes) allowed").description)
        }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw .init("cannot be read") }
        return [UInt8](data)
    }

    /// A resolver for the storage's import.
    public var resolving: CatalogPictureResolving {
        { (catalog: Catalog, held: [String: PictureSize]) throws(CatalogError) -> ResolvedCatalog in
            try resolve(catalog, held: held)
        }
    }

    /// The catalog with every picture's digest and size filled in, and the bytes of each file read.
    ///
    /// A file beside the catalog is always read and hashed (it may have changed), and decoded unless the shop holds those
    /// very bytes; a stored reference without its file stands when the shop holds its digest. Every problem is told,
    /// each at its product's picture.
    public func resolve(_ catalog: Catalog, held: [String: PictureSize]) throws(CatalogError) -> ResolvedCatalog {
        var issues: [CatalogIssue] = []
        var checked: [String: PictureReference] = [:]
        var stored: [String: StoredPicture] = [:]
        func resolved(_ pictures: [PictureReference], at path: String, product: ProductID) -> [PictureReference] {
            pictures.enumerated().compactMap { index, picture in
                func fail(_ message: String) {
                    issues.append(
                        CatalogIssue(path: "\(path).pictures[\(index)]", productID: product.rawValue, message: "\(picture.file): \(message)"))
                }
                if let known = checked[picture.file] { return known }
                let bytes: [UInt8]?
                do throws(CatalogPictureReadFailure) {
                    bytes = try read(picture.file)
                } catch {
                    fail(error.message)
                    return nil
                }
                guard let bytes else {
                    if picture.isStored, held[picture.digest] != nil { return picture }
                    fail("no such file beside the catalog")
                    return nil
                }
                let digest = PictureUpload.digest(bytes)
                if let size = held[digest] {
                    let reference = PictureReference(file: picture.file, digest: digest, width: size.width, height: size.height)
                    checked[picture.file] = reference
                    return reference
                }
                do throws(PictureRefusal) {
                    let kept = try PictureUpload.checked(bytes, digest: digest)
                    let reference = PictureReference(file: picture.file, digest: digest, width: kept.width, height: kept.height)
                    checked[picture.file] = reference
                    stored[digest] = kept
                    return reference
                } catch {
                    fail(error.description)
                    return nil
                }
            }
        }
        var catalog = catalog
        for index in catalog.products.indices {
            let path = "$.products[\(index)]"
            let id = catalog.products[index].id
            catalog.products[index].pictures = resolved(catalog.products[index].pictures, at: path, product: id)
            for variant in catalog.products[index].variants.indices {
                catalog.products[index].variants[variant].pictures = resolved(
                    catalog.products[index].variants[variant].pictures, at: "\(path).variants[\(variant)]", product: id)
            }
        }
        guard issues.isEmpty else { throw CatalogError(source: "the catalog's pictures", issues: issues) }
        return ResolvedCatalog(catalog: catalog, pictures: stored.values.sorted { $0.digest < $1.digest })
    }
}

/// Why a picture file could not be read, in words for the catalog's error list.
public struct CatalogPictureReadFailure: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
