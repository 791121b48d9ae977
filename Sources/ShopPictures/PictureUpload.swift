import Crypto
import Foundation
import ShopModels
import ShopPorts

/// A picture that comes in, checked alike whichever way it came (a catalog's file, the merchant API's upload, the
/// `catalog picture` command): within `PictureLimits.upload`, a PNG or JPEG that decodes, named by its SHA-256.
public enum PictureUpload {
    /// The bytes' SHA-256 in lowercase hex: the name the shop keeps and serves a picture by.
    public static func digest(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The picture to keep, once `bytes` passed every check; `declared` is the media type the sender named, which must
    /// be what the bytes are.
    public static func checked(_ bytes: [UInt8], declared: String? = nil, digest known: String? = nil) throws(PictureRefusal) -> StoredPicture {
        guard bytes.count <= PictureLimits.upload.maximumBytes else {
            throw PictureRefusal(.tooManyBytes, "\(bytes.count) bytes is more than the \(PictureLimits.upload.maximumBytes) allowed")
        }
        let decoded = try PictureDecoder.decode(bytes, limits: .upload)
        if let declared, PictureFormat(mediaType: declared) != decoded.format {
            throw PictureRefusal(.notAsSent, "the bytes are \(decoded.format.mediaType), sent as \(declared.prefix(60))")
        }
        return StoredPicture(
            digest: known ?? digest(bytes), mediaType: decoded.format.mediaType, width: decoded.sourceWidth, height: decoded.sourceHeight,
            bytes: bytes)
    }

    /// How a catalog names a kept picture: `pictures/` and the digest's first 16 digits, with its type's extension
    /// (what `catalog export` writes it as).
    public static func reference(_ picture: StoredPicture) -> PictureReference {
        let suffix = picture.mediaType == PictureFormat.png.mediaType ? "png" : "jpg"
        return PictureReference(
            file: "pictures/\(picture.digest.prefix(16)).\(suffix)", digest: picture.digest, width: picture.width, height: picture.height)
    }
}

/// The shop's intake: each picture checked on a thread of its own (a decode may take up to the limits' 3 s, which the
/// cooperative pool must not wait on), then kept in `store`.
public struct KeptPictureIntake: PictureIntake {
    let store: any PictureStoring

    public init(store: any PictureStoring) {
        self.store = store
    }

    public func take(_ bytes: [UInt8], declared: String?) async throws(PictureIntakeRefusal) -> PictureIntakeResult {
        let checked: Result<StoredPicture, PictureRefusal> = await withCheckedContinuation { done in
            Thread.detachNewThread {
                done.resume(returning: Result { () throws(PictureRefusal) -> StoredPicture in try PictureUpload.checked(bytes, declared: declared) })
            }
        }
        let picture: StoredPicture
        switch checked {
        case .success(let kept): picture = kept
        case .failure(let refusal): throw PictureIntakeRefusal("The picture is \(refusal.description).")
        }
        do {
            let isNew = try await store.store(picture)
            return PictureIntakeResult(
                reference: PictureUpload.reference(picture), mediaType: picture.mediaType, byteCount: bytes.count, isNew: isNew)
        } catch {
            throw PictureIntakeRefusal("The picture could not be kept: \(error)", reason: .storage)
        }
    }

    public func take(file path: String) async throws(PictureIntakeRefusal) -> PictureIntakeResult {
        let read: [UInt8]?
        do throws(CatalogPictureReadFailure) {
            read = try CatalogPictureImport.readFile(URL(fileURLWithPath: path))
        } catch {
            throw PictureIntakeRefusal("\(path): \(error.message)")
        }
        guard let bytes = read else { throw PictureIntakeRefusal("\(path): no such file", reason: .noSuchFile) }
        return try await take(bytes, declared: nil)
    }
}
