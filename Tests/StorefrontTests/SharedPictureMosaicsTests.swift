import LiveObjects
import ShopBundledCatalog
import ShopModels
import ShopPictures
import ShopPorts
import Synchronization
import Testing

/// The process's pictures: each read and decoded once whoever asks, each size drawn once, and the least recently used
/// dropped past the byte bound.
@Suite("Shared picture mosaics")
struct SharedPictureMosaicsTests {
    /// The bundled pictures by a made-up digest, counting the reads.
    final class CountingPictures: PictureRepository {
        let reads = Mutex<[String: Int]>([:])
        static let files = ["mug": "pictures/mug-stdout.png", "duck": "pictures/rubber-duck.png", "hub": "pictures/usb-hub.png"]

        func picture(digest: String) async throws -> StoredPicture? {
            reads.withLock { $0[digest, default: 0] += 1 }
            guard let file = Self.files[digest], let bytes = BundledPictures.bytes(of: file) else { return nil }
            return StoredPicture(digest: digest, mediaType: "image/png", width: 384, height: 288, bytes: bytes)
        }
    }

    @Test func sessionsAskingAtOnceShareOneReadAndOneDecode() async {
        let repository = CountingPictures()
        let mosaics = SharedPictureMosaics(repository: repository)
        let drawn = await withTaskGroup(of: PictureMosaic?.self) { group in
            for _ in 0..<8 { group.addTask { await mosaics.mosaic(digest: "duck", columns: 32, rows: 12) } }
            return await group.reduce(into: [PictureMosaic?]()) { $0.append($1) }
        }
        #expect(drawn.count == 8 && drawn.allSatisfy { $0 != nil })
        #expect(Set(drawn.compactMap { $0 }).count == 1, "the same cells for everyone")
        // Another size is drawn from the pixels already decoded.
        let small = await mosaics.mosaic(digest: "duck", columns: 16, rows: 6)
        #expect(small?.cells.count == 96)
        #expect(repository.reads.withLock { $0 } == ["duck": 1])
    }

    @Test func theLeastRecentlyUsedGoFirstPastTheBound() async {
        let repository = CountingPictures()
        // One decoded picture (at most 480 pixels on a side: 384 × 288 × 4 bytes) and its mosaics fit; two do not.
        let mosaics = SharedPictureMosaics(repository: repository, byteLimit: 600_000)
        _ = await mosaics.mosaic(digest: "mug", columns: 32, rows: 12)
        _ = await mosaics.mosaic(digest: "duck", columns: 32, rows: 12)
        #expect(mosaics.heldBytes <= 600_000)
        _ = await mosaics.mosaic(digest: "duck", columns: 32, rows: 12)
        #expect(repository.reads.withLock { $0 } == ["mug": 1, "duck": 1], "the duck's mosaic was kept")
        // The mug's small mosaic stays; its pixels went for the duck's, so another size reads it again.
        _ = await mosaics.mosaic(digest: "mug", columns: 32, rows: 12)
        #expect(repository.reads.withLock { $0["mug"] } == 1)
        _ = await mosaics.mosaic(digest: "mug", columns: 40, rows: 15)
        #expect(repository.reads.withLock { $0["mug"] } == 2, "the mug's pixels were dropped for the duck's and read again")
    }

    @Test func anUnknownPictureOrAnImpossibleBoxDrawsNothing() async {
        let repository = CountingPictures()
        let mosaics = SharedPictureMosaics(repository: repository)
        #expect(await mosaics.mosaic(digest: "nothing", columns: 10, rows: 5) == nil)
        #expect(await mosaics.mosaic(digest: "mug", columns: 0, rows: 5) == nil)
        #expect(await mosaics.mosaic(digest: "mug", columns: 10_000, rows: 5) == nil)
        #expect(repository.reads.withLock { $0 } == ["nothing": 1], "a box out of bounds reads nothing")
    }
}

extension SharedPictureMosaicsTests.CountingPictures: LiveObject {}
