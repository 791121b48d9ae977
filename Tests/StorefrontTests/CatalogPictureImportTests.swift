import Foundation
import ShopBundledCatalog
import ShopModels
import ShopPictures
import StorageSQLite
import StorefrontTesting
import Testing

/// A catalog file's pictures: imported with it, not read again while nothing changed, and imported again when a
/// picture alone changed under the same name.
@Suite("Catalog pictures imported")
struct CatalogPictureImportTests {
    @Test func aPictureChangedAloneIsImportedAgain() async throws {
        let folder = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appending(path: "catalog.json")
        try BundledCatalog.json.write(to: file, atomically: true, encoding: .utf8)
        try Fixtures.writeBundledPictures(besideCatalogIn: folder)
        let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
        let pictures = CatalogPictureImport.files(beside: file).resolving

        let first = try SQLiteCatalogImport.open(database: database, catalogFile: file, pictures: pictures)
        #expect(first.didImport)
        let mug = try #require(try await first.product(id: "mug-stdout")?.pictures.first)
        #expect((mug.file, mug.width, mug.height) == ("pictures/mug-stdout.png", 384, 288))
        #expect(PictureReference.isDigest(mug.digest))
        #expect(try !SQLiteCatalogImport.open(database: database, catalogFile: file, pictures: pictures).didImport)

        // The duck's bytes under the mug's name: the catalog file is the same, its picture is not.
        try Data(BundledPictures.bytes(of: "pictures/rubber-duck.png")!).write(to: folder.appending(path: "pictures/mug-stdout.png"))
        let again = try SQLiteCatalogImport.open(database: database, catalogFile: file, pictures: pictures)
        #expect(again.didImport)
        let changed = try #require(try await again.product(id: "mug-stdout")?.pictures.first)
        let duck = try #require(try await again.product(id: "rubber-duck")?.pictures.first)
        #expect(changed.digest == duck.digest && changed.digest != mug.digest)
        #expect(try !SQLiteCatalogImport.open(database: database, catalogFile: file, pictures: pictures).didImport)
    }
}
