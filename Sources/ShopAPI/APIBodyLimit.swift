import HTTPTypes
import ShopModels

/// How much body an operation reads, decided by the operation (its method and whole path), never by a path's prefix.
enum APIBodyLimit {
    /// A catalog's picture file's limit: what `POST /v1/merchant/pictures` takes from a merchant's token.
    static let pictureUploadBytes = CatalogLoader.maximumPictureBytes

    static func isPictureUpload(method: HTTPRequest.Method, path: String) -> Bool { method == .post && path == "/v1/merchant/pictures" }

    /// The body `method path` may carry: the picture upload's limit for it, `usual` for every other operation.
    static func bytes(method: HTTPRequest.Method, path: String, usual: Int) -> Int {
        isPictureUpload(method: method, path: path) ? pictureUploadBytes : usual
    }
}
