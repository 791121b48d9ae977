import ShopModels
import SnapshotTesting
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The cart on a wide terminal: the selected line's picture beside the lines (the variant's own where it has one), the
/// neighbours' asked for ahead, none on a narrow terminal or without colour.
@MainActor
@Suite("Cart pictures")
struct CartPictureTests {
    @Test func theSelectedLinesPictureStandsBesideTheLinesAndFollowsTheSelection() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 130, rows: 30), pictures: .mosaic)
        // The keycaps and the mug, then the coffee's 1 kg bag (a variant with a picture of its own).
        try await driver.press("a,down,a,j,j,j,j,j,j,j,j,enter,down,right,a,c")
        let lines = driver.state.cart.lines
        #expect(lines.map(\.productID) == ["keycap-dusk", "mug-stdout", "coffee-beans"], "\(lines)")
        let cart = driver.state.cart
        #expect(Set(cart.pictures.keys) == Set(lines.map(\.stockKey)), "each line's picture, by its stock key")
        let frame = driver.program.frame
        let slot = try #require(frame.pictureSlots.first, "\(driver.frameText)")
        #expect(frame.pictureSlots.count == 1 && slot.digest == cart.pictures[lines[0].stockKey]?.digest)
        #expect(slot.column >= 88 && slot.column + slot.columns <= 130 && slot.row == 3, "right of the lines: \(slot)")
        #expect(Set(frame.pictureHints.map(\.digest)) == [cart.pictures[lines[1].stockKey]!.digest], "the next line's, asked for ahead")
        var pictured = true
        for row in slot.row..<(slot.row + slot.rows) {
            for column in slot.column..<(slot.column + slot.columns) where frame.packed[row * 130 + column].pictureColors == nil { pictured = false }
        }
        #expect(pictured, "every cell of the slot is the picture's")
        assertSnapshot(of: driver.frameText, as: .lines, named: "cart-130x30")

        try await driver.press("down,down")
        let coffee = try #require(driver.program.frame.pictureSlots.first)
        let product = try #require(try await driver.stack.dependencies.catalog.product(id: "coffee-beans"))
        let bag = try #require(product.variants.first { $0.sku == lines[2].stockKey })
        #expect(coffee.digest == bag.pictures.first?.digest && coffee.digest != product.pictures.first?.digest, "the 1 kg bag's own")
    }

    @Test func aNarrowTerminalOrOneWithoutColourShowsTheLinesAlone() async throws {
        for (size, pictures) in [(Size(columns: 99, rows: 30), PictureSupport.mosaic), (Size(columns: 130, rows: 30), .art)] {
            let driver = await ScriptedDriver(size: size, pictures: pictures)
            try await driver.press("a,c")
            #expect(driver.state.cart.lines.count == 1)
            #expect(driver.program.frame.pictureSlots.isEmpty && driver.program.frame.pictureHints.isEmpty, "\(size) \(pictures)")
            #expect(driver.frameText.split(separator: "\n")[3].contains("$64.00"), "\(driver.frameText)")
        }
    }
}
