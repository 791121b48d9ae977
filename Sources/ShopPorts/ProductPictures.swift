import ShopModels

/// A picture's bytes as the shop keeps them: checked and measured when they came in, named by their SHA-256.
public struct StoredPicture: Hashable, Sendable {
    public var digest: String
    /// "image/png" or "image/jpeg".
    public var mediaType: String
    public var width: Int
    public var height: Int
    public var bytes: [UInt8]

    public init(digest: String, mediaType: String, width: Int, height: Int, bytes: [UInt8]) {
        self.digest = digest
        self.mediaType = mediaType
        self.width = width
        self.height = height
        self.bytes = bytes
    }
}

/// A catalog whose pictures were read and checked, with the bytes to store beside its products.
public struct ResolvedCatalog: Sendable {
    public var catalog: Catalog
    /// Each picture read from a file, once.
    public var pictures: [StoredPicture]

    public init(catalog: Catalog, pictures: [StoredPicture]) {
        self.catalog = catalog
        self.pictures = pictures
    }
}

/// A stored picture's size in pixels.
public struct PictureSize: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// Reads a catalog's picture files in before it is imported; the storage calls it and keeps what it returns.
/// `held` is every picture the shop has already, by digest: a file whose bytes the shop holds is not decoded again, and
/// a reference without its file beside the catalog can stand.
public typealias CatalogPictureResolving = @Sendable (_ catalog: Catalog, _ held: [String: PictureSize]) throws(CatalogError) -> ResolvedCatalog

/// Resolvers for catalogs that come with no folder of files.
public enum CatalogPictures {
    /// Keeps the references to pictures the shop holds, and refuses every other: there is no file to read.
    public static let held: CatalogPictureResolving = { (catalog: Catalog, held: [String: PictureSize]) throws(CatalogError) -> ResolvedCatalog in
        var issues: [CatalogIssue] = []
        for (index, product) in catalog.products.enumerated() {
            for picture in product.pictureReferences where !(picture.isStored && held[picture.digest] != nil) {
                let problem = picture.file + ": no such picture in the shop"
                issues.append(CatalogIssue(path: "$.products[\(index)].pictures", productID: product.id.rawValue, message: problem))
            }
        }
        guard issues.isEmpty else { throw CatalogError(source: "the catalog", issues: issues) }
        return ResolvedCatalog(catalog: catalog, pictures: [])
    }
}

/// Where the shop keeps its pictures, by digest.
public protocol PictureRepository: Sendable {
    func picture(digest: String) async throws -> StoredPicture?
}

/// Where a merchant's upload is kept: each picture once, by digest.
public protocol PictureStoring: Sendable {
    /// Keeps `picture`; answers false when the shop held those very bytes already.
    func store(_ picture: StoredPicture) async throws -> Bool
}

/// Takes a picture a merchant sends (the API's upload, `catalog picture`): checked as a catalog's files are, then kept.
public protocol PictureIntake: Sendable {
    /// Checks `bytes` (sent as the media type `declared`, where the sender named one) and keeps them.
    func take(_ bytes: [UInt8], declared: String?) async throws(PictureIntakeRefusal) -> PictureIntakeResult
    /// Reads the file at `path` on this machine (a regular file, its size checked before it is read), then as `take`.
    func take(file path: String) async throws(PictureIntakeRefusal) -> PictureIntakeResult
}

/// A picture taken: how a catalog names it, its type and size, and whether the shop held those bytes before.
public struct PictureIntakeResult: Hashable, Sendable {
    public var reference: PictureReference
    public var mediaType: String
    public var byteCount: Int
    public var isNew: Bool

    public init(reference: PictureReference, mediaType: String, byteCount: Int, isNew: Bool) {
        self.reference = reference
        self.mediaType = mediaType
        self.byteCount = byteCount
        self.isNew = isNew
    }
}

/// Why a picture was not taken, in words for the sender.
public struct PictureIntakeRefusal: Error, Hashable, Sendable {
    public enum Reason: Sendable, Hashable {
        /// The picture itself: too large, damaged, not a PNG or JPEG, not what it was sent as.
        case refused
        case noSuchFile
        /// It was fine but could not be kept.
        case storage
    }
    public var message: String
    public var reason: Reason
    public init(_ message: String, reason: Reason = .refused) {
        self.message = message
        self.reason = reason
    }
}

/// Draws a stored picture in cells, for the text fronts: decoded once, kept for every session of the process.
public protocol PictureMosaics: Sendable {
    /// The picture `digest` in `columns` × `rows` cells; nil when the shop holds no such picture or it cannot be drawn.
    func mosaic(digest: String, columns: Int, rows: Int) async -> PictureMosaic?
    /// The picture in `columns` × `rows` cells of `cellWidth` × `cellHeight` pixels, in `graphics`; nil when it
    /// cannot be drawn so.
    func graphics(
        digest: String, columns: Int, rows: Int, cellWidth: Int, cellHeight: Int, in graphics: TerminalGraphics
    ) async -> PictureGraphics?
}

extension PictureMosaics {
    /// None: a source that draws mosaics alone.
    public func graphics(
        digest: String, columns: Int, rows: Int, cellWidth: Int, cellHeight: Int, in graphics: TerminalGraphics
    ) async -> PictureGraphics? {
        nil
    }
}
