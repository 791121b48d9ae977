import Foundation
import ShopBundledCatalog
import ShopSandbox
import Testing

/// `assets/` is the one source of what is not code; the binary embeds the catalog from there.
@Suite("Assets")
struct AssetsTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    @Test func theEmbeddedCatalogIsTheOneInAssets() throws {
        let file = try String(contentsOf: Self.root.appendingPathComponent("assets/catalog.json"), encoding: .utf8)
        #expect(BundledCatalog.json == file, "the binary embeds a catalog other than assets/catalog.json")
    }

    @Test func theTargetsResourceIsALinkToTheAsset() throws {
        let link = Self.root.appendingPathComponent("Sources/ShopBundledCatalog/Resources/catalog.json").path
        let destination = try FileManager.default.destinationOfSymbolicLink(atPath: link)
        #expect(destination == "../../../assets/catalog.json", "one file, not a copy that can drift")
    }
}
