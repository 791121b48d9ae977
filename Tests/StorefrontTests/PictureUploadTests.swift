import CustomDump
import Foundation
import ShopBundledCatalog
import ShopModels
import ShopPictures
import ShopPorts
import StorageRows
import StorefrontTesting
import Testing

/// One check for every picture that comes in (a catalog's file, an upload, `catalog picture`): its digest, its type
/// as sent, its bytes bounded before any decode; and an edit names only pictures the shop holds.
@Suite("Picture uploads")
struct PictureUploadTests {
    static let duckPNG = BundledPictures.bytes(of: "pictures/rubber-duck.png")!
    static let duckJPEG = [UInt8](try! Data(contentsOf: PictureDecoderTests.fixtures.appending(path: "duck.jpg")))

    @Test func aPictureIsKeptByItsDigestWithTheReferenceACatalogNamesItBy() throws {
        let kept = try PictureUpload.checked(Self.duckPNG, declared: "image/png")
        let digest = PictureUpload.digest(Self.duckPNG)
        #expect(PictureReference.isDigest(digest))
        expectNoDifference(
            kept, StoredPicture(digest: digest, mediaType: "image/png", width: 384, height: 288, bytes: Self.duckPNG))
        expectNoDifference(
            PictureUpload.reference(kept), PictureReference(file: "pictures/\(digest.prefix(16)).png", digest: digest, width: 384, height: 288))
        #expect(PictureUpload.reference(try PictureUpload.checked(Self.duckJPEG)).file.hasSuffix(".jpg"), "a JPEG with no type named")
    }

    @Test func aPictureSentAsAnotherTypeOrTooLargeIsRefusedByItsReason() throws {
        let disguised = try #require(throws: PictureRefusal.self) { try PictureUpload.checked(Self.duckJPEG, declared: "image/png") }
        #expect(disguised.reason == .notAsSent && disguised.description == "not what it was sent as: the bytes are image/jpeg, sent as image/png")
        // Refused by its length before a decode: 8 MiB and one byte of a PNG's start.
        let long = Array(Self.duckPNG.prefix(64)) + [UInt8](repeating: 0, count: CatalogLoader.maximumPictureBytes + 1 - 64)
        let large = try #require(throws: PictureRefusal.self) { try PictureUpload.checked(long) }
        #expect(large.reason == .tooManyBytes && large.description == "too large: 8388609 bytes is more than the 8388608 allowed")
        let bomb = try #require(throws: PictureRefusal.self) { try PictureUpload.checked(Fixtures.png(width: 50_000, height: 50_000)) }
        #expect(bomb.reason == .tooManyPixels)
    }

    @Test func anEditNamesOnlyPicturesTheShopHoldsOrThatTheProductNamedBefore() throws {
        let held = PictureReference(file: "pictures/a.png", digest: String(repeating: "a", count: 64), width: 4, height: 3)
        let unheld = PictureReference(file: "pictures/b.png", digest: String(repeating: "b", count: 64), width: 4, height: 3)
        let unread = PictureReference(file: "pictures/c.png", digest: "", width: 0, height: 0)
        let catalog = try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled")
        var product = try #require(catalog.products.first { !$0.variants.isEmpty })
        product.pictures = [held, unheld, unread]
        product.variants[0].pictures = [unheld]
        expectNoDifference(
            CatalogEditPlan.picturesNotHeld(by: product, held: [held.digest]),
            [
                "pictures[1]: pictures/b.png: no such picture in the shop; upload it first (POST /v1/merchant/pictures, or `storefront catalog picture FILE`)",
                "pictures[2]: pictures/c.png: no such picture in the shop; upload it first (POST /v1/merchant/pictures, or `storefront catalog picture FILE`)",
                "variants[0].pictures[0]: pictures/b.png: no such picture in the shop; upload it first (POST /v1/merchant/pictures, or `storefront catalog picture FILE`)",
            ])
        // What the stored document named before stands: kept pictures by digest, never-read ones by file.
        let before =
            #"{"id": "x", "pictures": [{"file": "pictures/b.png", "sha256": "\#(unheld.digest)", "width": 4, "height": 3}, "pictures/c.png"]}"#
        let named = CatalogEditPlan.pictureDigests(in: before)
        #expect(named == [unheld.digest, "pictures/c.png"])
        #expect(CatalogEditPlan.picturesNotHeld(by: product, held: named.union([held.digest])).isEmpty)
    }
}
