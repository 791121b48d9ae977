import PropertyBased
import ShopModels
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// A frame laid out from the one before copies the rows it knows to be the same: it must equal the
/// frame laid out from nothing, cell for cell, cluster for cluster, click target for click target.
@MainActor
@Suite("Layout from the frame before")
struct LayoutReuseTests {
    nonisolated static let keys: [Key] = [
        .up, .down, .down, .down, .pageUp, .pageDown, .home, .end, .enter, .escape, .backspace,
        .character("a"), .character("a"), .character("c"), .character("/"), .character("e"), .character("+"),
        .character("x"), .character("?"), .character("j"), .character("k"),
    ]
    nonisolated static let sizes = [
        Size(columns: 80, rows: 24), Size(columns: 200, rows: 60), Size(columns: 120, rows: 14), Size(columns: 40, rows: 12),
        Size(columns: 30, rows: 10),
    ]

    /// Names with graphemes of several scalars (kept in the frame's clusters), wide characters, a
    /// sold-out product and prices of several widths, so rows differ in every way a copy must keep. Sold from SQLite,
    /// as the keys search it.
    static func stack() throws -> TestStack {
        let names = ["Flag 🇩🇪 mug", "Cafe\u{301} table", "漢字 lamp", "Plain chair", "Family 👩‍👩‍👧 set", "Kettle", "Ｗide clock", "Oak stool"]
        let products = (0..<60).map { i in
            Product(
                id: ProductID("r\(i)"), name: "\(names[i % names.count]) \(i)", summary: "Summary \(i) with e\u{301}",
                description: "Words for the preview of product \(i), long enough to wrap over several lines of the pane.",
                price: Money(minorUnits: Int64([199, 2_500, 129_900, 50][i % 4]), currency: .usd),
                stock: i % 7 == 3 ? 0 : 5
            )
        }
        return try TestStack.selling(Catalog(shop: .standard(), products: products))
    }

    @Test func aFrameLaidOutFromTheOneBeforeEqualsOneLaidOutFromNothing() async {
        let keyIndexes = Gen.int(in: 0...(Self.keys.count - 1)).array(of: 1...120)
        let sizeIndexes = Gen.int(in: 0...(Self.sizes.count - 1)).array(of: 1...3)
        await propertyCheck(count: 25, input: keyIndexes, sizeIndexes, Gen.bool) { indexes, sizeIndexes, ascii in
            let charset: Charset = ascii ? .ascii : .unicode
            let driver = await ScriptedDriver(stack: try Self.stack(), size: Self.sizes[sizeIndexes[0]], charset: charset)
            var shown = driver.program.frame
            for (step, index) in indexes.enumerated() {
                // The terminal is resized now and then: a frame of another size must not be copied from.
                if step % 40 == 39 { await driver.resize(to: Self.sizes[sizeIndexes[(step / 40) % sizeIndexes.count]]) }
                await driver.press(Self.keys[index])
                let size = driver.renderer.size
                let fresh = layout(driver.state, size, charset: charset)
                let reused = layout(driver.state, size, charset: charset, previous: shown)
                // Compared first, so a failure names the step rather than printing both frames whole.
                let same = reused == fresh
                #expect(same, "after \(Self.keys[index]) at \(size), step \(step)")
                #expect(reused.text == fresh.text)
                shown = reused
            }
        }
    }

    @Test func aMoveChangesTheCounterAndTwoRowsOnly() async throws {
        let driver = await ScriptedDriver(stack: try Self.stack(), size: Size(columns: 80, rows: 24))
        let before = driver.program.frame
        await driver.press(.down)
        let after = layout(driver.state, Size(columns: 80, rows: 24), previous: before)
        let same = after == driver.program.frame
        #expect(same)
        // The rows around the list and the unselected rows read as before; the two rows and the counter changed.
        let changed = (0..<24).filter { !after.row($0, matches: before) }
        #expect(changed == [1, 2, 3])
    }
}
