import HTTPTypes
import Hummingbird
import NIOCore

/// A stored picture as the page serves it: its media type and bytes.
public struct WebPicture: Sendable {
    public var mediaType: String
    public var bytes: [UInt8]

    public init(mediaType: String, bytes: [UInt8]) {
        self.mediaType = mediaType
        self.bytes = bytes
    }
}

/// What a picture's address comes to: the picture, none by that digest, or the shop cannot read it now.
public enum WebPictureAnswer: Sendable {
    case picture(WebPicture)
    case notFound
    case unavailable
}

/// Reads a product's picture by its SHA-256 (64 lowercase hexadecimal digits, checked before the call).
public typealias WebPictures = @Sendable (_ digest: String) async -> WebPictureAnswer

extension WebFront {
    /// `GET /pictures/DIGEST`: a product's picture, by the digest of its bytes, so its address never shows other bytes:
    /// cached for a year by every browser and proxy, its type as stored and never sniffed. Other origins may show it
    /// (`Cross-Origin-Resource-Policy: cross-origin`): a receipt's lines do, in a mail client's page.
    static func addPictures(to router: Router<WebRequestContext>, pictures: @escaping WebPictures) {
        router.get("/pictures/:digest") { _, context in
            let digest = context.parameters.get("digest") ?? ""
            guard digest.utf8.count == 64, digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                return Self.response(.notFound, text: "no such picture")
            }
            switch await pictures(digest) {
            case .picture(let picture):
                var response = Self.response(
                    .ok, type: picture.mediaType, body: ByteBuffer(bytes: picture.bytes), cache: "public, max-age=31536000, immutable")
                response.headers[HTTPField.Name("ETag")!] = "\"\(digest)\""
                response.headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "cross-origin"
                return response
            case .notFound: return Self.response(.notFound, text: "no such picture")
            case .unavailable: return Self.response(.serviceUnavailable, text: "the shop cannot read its pictures just now")
            }
        }
    }
}
