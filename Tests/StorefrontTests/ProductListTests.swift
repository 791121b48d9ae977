import ShopModels
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

@MainActor
@Suite("Product list")
struct ProductListTests {
    @Test func stateHoldsOnlyTheVisibleWindowOfAHugeCatalog() async throws {
        let spy = CatalogRepositorySpy(wrapping: InMemoryCatalog(catalog: Fixtures.generatedCatalog(count: 100_000)))
        let driver = await ScriptedDriver(stack: TestStack(catalog: spy), size: Size(columns: 80, rows: 24))
        #expect(driver.state.productList.totalCount == 100_000)
        #expect(driver.state.productList.rows.count == Layout.listRows(for: Size(columns: 80, rows: 24)))
        await driver.press(.end)
        #expect(driver.state.productList.selectedIndex == 99_999)
        #expect(driver.state.productList.rows.last?.id == "p100000")
        #expect(driver.frameText.contains("100000 of 100000"))
        // The window and two windows either side: bounded by the screen, never by the catalog.
        #expect(spy.largestLimit == 5 * 20)
    }

    @Test func scrollingRowByRowReadsTheCatalogOncePerTwoWindows() async throws {
        let spy = CatalogRepositorySpy(wrapping: InMemoryCatalog(catalog: Fixtures.generatedCatalog(count: 1_000)))
        let driver = await ScriptedDriver(stack: TestStack(catalog: spy), size: Size(columns: 80, rows: 24))
        let reads = spy.pageReads
        for _ in 0..<(19 + 200) { await driver.press(.down) }
        #expect(driver.state.productList.windowStart == 200)
        #expect(driver.state.productList.rows.map(\.id.rawValue) == (201...220).map { "p\($0)" }, "the rows shown are the window's")
        // The first read held rows 0-99; each read after holds the window and 40 rows either side,
        // so 200 rows scrolled one at a time are read 3 times: at windows 81, 122 and 163.
        #expect(spy.pageReads - reads == 3)
        await driver.press(.up)
        #expect(spy.pageReads - reads == 3, "scrolling back stays within the rows read")
    }

    @Test func movingWithinTheWindowReadsNothing() async throws {
        let spy = CatalogRepositorySpy(wrapping: Fixtures.bundledCatalog)
        let driver = await ScriptedDriver(stack: TestStack(catalog: spy), size: Size(columns: 80, rows: 24))
        let reads = spy.pageReads
        try await driver.press("down,down,j,k")
        #expect(spy.pageReads == reads)
        #expect(driver.state.productList.selectedIndex == 2)
    }

    @Test func scrollingKeepsTheSelectionVisible() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 40, rows: 12))
        let capacity = Layout.listRows(for: Size(columns: 40, rows: 12))
        for _ in 0..<capacity { await driver.press(.down) }
        #expect(driver.state.productList.selectedIndex == capacity)
        #expect(driver.state.productList.windowStart == 1)
        await driver.press(.pageDown)
        #expect(driver.state.productList.selectedIndex == 2 * capacity)
        await driver.press(.home)
        #expect(driver.state.productList.windowStart == 0)
        await driver.press(.up)
        #expect(driver.state.productList.selectedIndex == 0)
    }

    @Test func searchFiltersAsYouType() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("/,m,u,g")
        #expect(driver.state.productList.isEditingQuery)
        #expect(driver.state.productList.rows.map(\.name) == ["stdout Mug"])
        try await driver.press("backspace,backspace,backspace,c,o,f,f,e,e")
        // Name, summary and tags are searched: two more products mention coffee in their tags.
        #expect(driver.state.productList.rows.map(\.name) == ["stdout Mug", "Compile-Time Coffee", "Pour-Over Kettle"])
        try await driver.press("enter")
        #expect(!driver.state.productList.isEditingQuery)
        #expect(driver.state.productList.query == "coffee")
        try await driver.press("esc")
        #expect(driver.state.productList.totalCount == 24)
    }

    @Test func typingQInSearchIsTextNotQuit() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("/,q,q,q")
        #expect(!driver.state.isQuitting)
        #expect(driver.state.productList.query == "qqq")
        #expect(driver.frameText.contains("No products match"))
    }

    /// A paste is one burst of keys: searched once, and cut at the field's length whatever its size.
    @Test func aPastedBurstIsSearchedOnceAndCutAtTheQueryLimit() async throws {
        let spy = CatalogRepositorySpy(wrapping: Fixtures.bundledCatalog)
        let driver = await ScriptedDriver(stack: TestStack(catalog: spy), size: Size(columns: 80, rows: 24))
        try await driver.press("/")
        let counts = spy.countReads
        let paste = "mug" + String(repeating: "x", count: 19_997)
        driver.program.enqueue(contentsOf: paste.map { Key.character($0) } + [.enter, .down])
        await driver.settle()
        #expect(spy.countReads - counts == 1, "the whole paste is one search")
        #expect(driver.state.productList.query == "mug" + String(repeating: "x", count: ProductListState.queryLimit - 3))
        #expect(!driver.state.productList.isEditingQuery, "the Enter after the paste is still a key of its own")
        try await driver.press("/,y")
        #expect(driver.state.productList.query.count == ProductListState.queryLimit, "typing past the limit changes nothing")
        #expect(spy.countReads - counts == 1, "and searches nothing")
    }

    @Test func aBurstStopsAtQuitAndLeavesTheKeysAfterIt() async throws {
        let driver = await ScriptedDriver()
        driver.program.enqueue(contentsOf: [Key.down, .character("q"), .down, .down])
        await driver.settle()
        #expect(driver.state.isQuitting)
        #expect(driver.state.productList.selectedIndex == 1, "nothing after q was handled")
    }

    @Test func cartQuantityKeys() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c,+,+,-")
        #expect(driver.state.cart.lines.first?.quantity == 2)
        try await driver.press("-,-")
        #expect(driver.state.cart.lines.first?.quantity == 1)
        #expect(driver.state.notice?.text == "Press x to remove the line.")
        try await driver.press("x")
        #expect(driver.state.cart.lines.isEmpty)
        #expect(driver.frameText.contains("Your cart is empty."))
    }

    @Test func ordersListNewestFirstAndOpens() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,c,enter,p,enter,enter,down,a,c,enter,p,enter,o")
        #expect(driver.state.screen == .orders)
        #expect(driver.state.orders.rows.map(\.number) == ["SF-000002", "SF-000001"])
        try await driver.press("enter")
        #expect(driver.state.orderDetail?.number == "SF-000002")
        #expect(driver.frameText.contains("stdout Mug"))
        // Its history, read when it opened: placed by this shopper, then paid.
        #expect(driver.state.orderDetailEvents.map(\.change) == [.placed(total: driver.state.orderDetail?.totals.total ?? .zero(.usd)), .charged])
        #expect(driver.frameText.contains("Placed") && driver.frameText.contains("Paid"))
        // Back in the list, the opened order and its history are let go.
        try await driver.press("esc")
        #expect(driver.state.orderDetail == nil && driver.state.orderDetailEvents.isEmpty)
    }

    @Test func helpOverlayListsTheKeysOfTheScreenUnderIt() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("?")
        #expect(driver.state.isHelpShown)
        #expect(driver.frameText.contains("Keys"))
        #expect(driver.frameText.contains("search"))
        try await driver.press("a")
        #expect(driver.state.cartBadge.itemCount == 0, "keys other than Esc and ? do nothing under help")
        try await driver.press("esc")
        #expect(!driver.state.isHelpShown)
    }

    /// What has the keys takes typed text: a key that opens help elsewhere is part of the search being typed, and the
    /// shop opens no help while it is typed, however the action came (a host decodes keys against the screens it last
    /// drew, the reducer asks the features' states).
    @Test func aKeyThatOpensHelpElsewhereIsTextInTheSearchBeingTyped() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("/")
        try await driver.press("?")
        #expect(!driver.state.isHelpShown && driver.state.productList.query == "?" && driver.state.isTakingText)
        await driver.send(.toggleHelp)
        #expect(!driver.state.isHelpShown, "no help over the search being typed")
        try await driver.press("enter")
        #expect(!driver.state.isTakingText)
        await driver.send(.toggleHelp)
        #expect(driver.state.isHelpShown, "the search typed, help opens again")
    }

    @Test func theLaunchScriptBuysTheFirstProduct() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("enter,a,c,enter,p,enter")
        #expect(driver.state.screen == .confirmation)
        #expect(driver.state.confirmation?.orderNumber == "SF-000001")
    }
}
