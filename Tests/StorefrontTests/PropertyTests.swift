import PropertyBased
import ShopModels
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

@MainActor
@Suite("Random key sequences")
struct PropertyTests {
    nonisolated static let keys: [Key] = [
        .up, .down, .pageUp, .pageDown, .home, .end, .enter, .escape, .backspace, .tab, .left, .right,
        .character("a"), .character("b"), .character("c"), .character("s"), .character("o"), .character("/"),
        .character("+"), .character("-"), .character("x"), .character("p"), .character("?"), .character("k"),
        .character("j"), .character("m"), .character("e"), .character("q"),
    ]
    nonisolated static let sizes = [
        Size(columns: 40, rows: 12), Size(columns: 80, rows: 24), Size(columns: 200, rows: 60), Size(columns: 30, rows: 10),
    ]

    @Test func neverCrashAndKeepTheInvariants() async {
        let keyIndexes = Gen.int(in: 0...(Self.keys.count - 1)).array(of: 0...200)
        let sizeIndex = Gen.int(in: 0...(Self.sizes.count - 1))
        await propertyCheck(count: 60, input: keyIndexes, sizeIndex) { indexes, sizeIndex in
            await Self.press(indexes, size: Self.sizes[sizeIndex])
        }
    }

    /// The same on a shop of products with options: the page's choice always names a variant for sale (one that is
    /// not sold out, unless every variant is), and the cart holds one line per variant, named by it.
    @Test func aShopWithVariantsKeepsItsChoicesAndLines() async throws {
        let keyIndexes = Gen.int(in: 0...(Self.keys.count - 1)).array(of: 0...150)
        let sizeIndex = Gen.int(in: 0...(Self.sizes.count - 1))
        await propertyCheck(count: 30, input: keyIndexes, sizeIndex) { indexes, sizeIndex in
            var stack = try! TestStack.selling(VariantTests.catalog(mediumLeft: 0))
            stack.backOffice = stack.liveBackOffice
            let size = Self.sizes[sizeIndex]
            let driver = await ScriptedDriver(stack: stack, size: size)
            for index in indexes {
                await driver.press(Self.keys[index])
                Self.checkInvariants(driver.state, frame: driver.program.frame, size: size)
                if let page = driver.state.productDetail, page.product.hasVariants {
                    let chosen = page.chosenVariant
                    #expect(chosen != nil, "the choice \(page.choice) names a variant")
                    #expect(chosen?.isSoldOut != true || page.product.variants.allSatisfy(\.isSoldOut))
                }
                let keys = driver.state.cart.lines.map(\.stockKey)
                #expect(Set(keys).count == keys.count, "one line per variant")
                #expect(driver.state.cart.lines.allSatisfy { $0.variant == nil || $0.name.hasSuffix(" — \($0.variant!.title)") })
            }
        }
    }

    /// A sequence a run found: Buy now pays, then the order is canceled from the orders screen.
    @Test func buyNowThenCancelTheOrder() async {
        let driver = await Self.press([22, 22, 6, 13, 6, 22, 22, 16, 6, 20, 6], size: Size(columns: 80, rows: 24))
        #expect(driver.state.orderDetail?.status == .canceled, "the order was paid, then canceled")
    }

    /// Presses the keys at `indexes`, checking the invariants after each.
    @discardableResult
    static func press(_ indexes: [Int], size: Size) async -> ScriptedDriver {
        // Random keys can pay and then cancel the order: the back office is the real one over the test's stores.
        var stack = TestStack()
        stack.backOffice = stack.liveBackOffice
        let driver = await ScriptedDriver(stack: stack, size: size)
        for index in indexes {
            await driver.press(Self.keys[index])
            Self.checkInvariants(driver.state, frame: driver.program.frame, size: size)
        }
        return driver
    }

    static func checkInvariants(_ state: StorefrontState, frame: Frame, size: Size) {
        let cart = state.cart
        #expect(cart.totals.total == cart.totals.subtotal + cart.totals.shipping + cart.totals.tax)
        #expect(cart.totals.subtotal == cart.lines.map(\.total).sum(in: .usd))
        #expect(cart.lines.allSatisfy { CartLine.quantityRange.contains($0.quantity) })
        #expect(state.cartBadge.itemCount == cart.lines.reduce(0) { $0 + $1.quantity })
        #expect(cart.lines.isEmpty || cart.lines.indices.contains(cart.selectedIndex))

        let list = state.productList
        #expect(list.totalCount == 0 || (0..<list.totalCount).contains(list.selectedIndex))
        #expect(list.totalCount == 0 || list.selectedProduct != nil, "the selection is inside the visible window")

        if let sheet = state.paymentSheet {
            if let total = sheet.summaryItems.last {
                #expect(total.amount == sheet.summaryItems.dropLast().map(\.amount).sum(in: .usd))
            }
            // A choice, or the "Add a new …" row after them.
            if let chooser = sheet.chooser { #expect((0..<chooser.rowCount).contains(chooser.selectedIndex)) }
        }
        let orders = state.orders
        #expect(orders.totalCount == 0 || (0..<orders.totalCount).contains(orders.selectedIndex))

        #expect(frame.size == size)
        #expect(frame.lines.count == size.rows)
        #expect(frame.lines.allSatisfy { TerminalText.width(of: $0) == size.columns })
    }
}
