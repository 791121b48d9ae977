import ShopModels
import ShopPorts
import SnapshotTesting
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The product page's picture in a 256-colour terminal: a mosaic libchafa draws from the bundled catalog's picture,
/// the chosen variant's where it has its own, and the art where the terminal shows no colour.
@MainActor
@Suite("Product pictures")
struct ProductPictureTests {
    @Test(
        "the mug's page at 80x24, 120x34 and 200x60",
        arguments: [Size(columns: 80, rows: 24), Size(columns: 120, rows: 34), Size(columns: 200, rows: 60)])
    func mugPage(size: Size) async throws {
        let driver = await ScriptedDriver(size: size, pictures: .mosaic)
        try await driver.press("down,enter")
        #expect(driver.state.productDetail?.product.id == "mug-stdout")
        let frame = driver.program.frame
        let slot = try #require(frame.pictureSlots.first)
        #expect(frame.pictureSlots.count == 1)
        // Every cell of the slot is the picture's, in its own colours; the cup's white is in it.
        let cells = (slot.row..<(slot.row + slot.rows)).flatMap { row in
            (slot.column..<(slot.column + slot.columns)).map { frame.packed[row * size.columns + $0] }
        }
        #expect(cells.allSatisfy { $0.pictureColors != nil })
        #expect(
            cells.contains {
                [231, 255, 254, 253].contains($0.pictureColors!.foreground) || [231, 255, 254, 253].contains($0.pictureColors!.background)
            })
        assertSnapshot(of: driver.frameText, as: .lines, named: "mug-\(size)")
    }

    @Test func theChosenVariantsPictureReplacesTheProducts() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 120, rows: 34), pictures: .mosaic)
        try await driver.press("j,j,j,j,j,j,j,j,j,enter")
        let product = try #require(driver.state.productDetail?.product)
        #expect(product.id == "coffee-beans")
        let small = try #require(driver.program.frame.pictureSlots.first?.digest)
        #expect(small == product.pictures.first?.digest)
        // Weight: 1 kg, which has a picture of its own.
        try await driver.press("down,right")
        #expect(driver.state.productDetail?.choice.last == "1 kg")
        let large = try #require(driver.program.frame.pictureSlots.first?.digest)
        #expect(large != small)
        #expect(large == driver.state.productDetail?.chosenVariant?.pictures.first?.digest)
    }

    @Test func aTerminalWithoutColourShowsTheArt() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 120, rows: 34), pictures: .art)
        try await driver.press("down,enter")
        #expect(driver.program.frame.pictureSlots.isEmpty)
        #expect(driver.frameText.contains("stdout"))
        let ascii = await ScriptedDriver(size: Size(columns: 120, rows: 34), charset: .ascii, pictures: .mosaic)
        try await ascii.press("down,enter")
        #expect(ascii.program.frame.pictureSlots.isEmpty, "an ASCII terminal draws no blocks")
    }
}
