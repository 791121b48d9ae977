import Foundation
import ShopBootstrap
import ShopBundledCatalog
import ShopModels
import ShopSandbox
import StorefrontTesting
import SystemPackage
import Testing

/// The shop's storage opened in one place: the catalog's currency on every repository, and each way it cannot be
/// opened told as one kind of failure.
@Suite("Opening the shop's storage")
struct ShopStorageOpeningTests {
    /// A folder with a catalog file in yen, the bundled catalog's products at the same numbers.
    static func yenCatalog() throws -> FilePath {
        let folder = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("yen.json")
        try Data(BundledCatalog.json.replacingOccurrences(of: "\"currency\": \"USD\"", with: "\"currency\": \"JPY\"").utf8).write(to: file)
        try Fixtures.writeBundledPictures(besideCatalogIn: folder)
        return FilePath(file.path)
    }

    @Test func aShopOpenedThenReopenedByTheMerchantsCommandsKeepsItsCatalogsCurrency() async throws {
        let directory = FilePath(TemporaryDirectory.make().path)
        let shop = try await ShopStorage.openShop(
            at: .sqlite(directory: directory), catalog: .file(try Self.yenCatalog()), pool: .command, migrate: true, environment: [:])
        #expect(shop.currency == .jpy && shop.didImport)
        let merchant = try await ShopStorage.openExisting(at: .sqlite(directory: directory), environment: [:])
        #expect(merchant.currency == .jpy, "the catalog as last imported, not the bundled one")
        #expect(try await merchant.catalog.page(matching: "", offset: 0, limit: 1).first?.price.currency == .jpy)
        #expect(try await ShopStorage.readOrders(at: .sqlite(directory: directory), customer: nil, limit: 10, environment: [:]) == [])
    }

    @Test func eachWayTheStorageCannotBeOpenedIsOneKindOfFailure() async throws {
        let empty = FilePath(TemporaryDirectory.make().path)
        await #expect(throws: StorageOpenFailure(.noInput, "no shop in \(empty): it holds no storefront.sqlite")) {
            try await ShopStorage.openExisting(at: .sqlite(directory: empty), environment: [:])
        }
        #expect(
            try await ShopStorage.readOrders(at: .sqlite(directory: empty), customer: nil, limit: 10, environment: [:]) == [], "no shop, no orders")
        let missing = empty.appending("nowhere.json")
        await #expect(throws: StorageOpenFailure(.noInput, "no such catalog file: \(missing)")) {
            try await ShopStorage.openShop(at: .sqlite(directory: empty), catalog: .file(missing), pool: .command, migrate: true, environment: [:])
        }
        let invalid = empty.appending("invalid.json")
        try FileManager.default.createDirectory(atPath: empty.string, withIntermediateDirectories: true)
        try Data("{\"store\": {}}".utf8).write(to: URL(fileURLWithPath: invalid.string))
        do {
            _ = try await ShopStorage.openShop(
                at: .sqlite(directory: empty), catalog: .file(invalid), pool: .command, migrate: true, environment: [:])
            Issue.record("an invalid catalog opened")
        } catch let failure as StorageOpenFailure {
            #expect(failure.kind == .invalidCatalog && failure.description.hasPrefix("invalid catalog"), "\(failure)")
        }
        let url = try #require(URL(string: "postgres://shop@127.0.0.1:1/shop"))
        do {
            _ = try await ShopStorage.openShop(at: .postgres(url), catalog: .file(invalid), pool: .command, migrate: true, environment: [:])
            Issue.record("a catalog file was taken with PostgreSQL")
        } catch let failure as StorageOpenFailure {
            #expect(failure.kind == .usage && failure.description.contains("storefront catalog import"), "\(failure)")
        }
    }
}
