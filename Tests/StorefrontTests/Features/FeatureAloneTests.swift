import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore
import StorefrontTesting
import Testing

/// One feature at a time, in a store of its own with only the dependencies it uses: every other one fails the test
/// when called (`StorefrontDependencies.unimplemented`), and what it asks of other features is received, not done.
@MainActor
@Suite("Features alone")
struct FeatureAloneTests {
    private static let shop = ShopProfile.standard()
    private static let mug = Product(
        id: ProductID("mug"), name: "stdout Mug", summary: "A mug.", description: "A mug.", price: Money(minorUnits: 1_800, currency: .usd),
        stock: 5)

    private static func scope<Owned>(_ owned: Owned, route: [Screen], cartLines: [CartLine] = []) -> Scoped<Owned> {
        Scoped(
            owned: owned, shell: Shell(route: route, form: nil, notice: nil, isWaitingForStorage: false),
            customer: Customer(customerID: "guest", signedIn: nil), context: FeatureContext(cartLines: cartLines))
    }

    @Test func theCartAloneCountsAKeyAndAsksCheckoutToTakeTheLines() async {
        let line = CartLine(productID: Self.mug.id, name: Self.mug.name, unitPrice: Self.mug.price, quantity: 1)
        var cart = CartFeature.Owned(currency: .usd)
        cart.cart = Cart(currency: .usd, lines: [line])
        cart.savedCart = [line]
        let store = FeatureTestStore(Self.scope(cart, route: [.productList, .cart]), reducer: CartFeature.reducer)
        store.send(.increaseQuantity) {
            $0.cart.setQuantity(at: 0, to: 2)
            // The fresh stock is read after the frame, by the app: the feature only notes it is due.
            $0.stockChecksDue[line.productID] = 1
        }
        let bought = Cart(currency: .usd, lines: [CartLine(productID: line.productID, name: line.name, unitPrice: line.unitPrice, quantity: 2)])
        store.send(.pay)
        await store.receive(.cart(.delegate(.beginCheckout(CheckoutOrder(lines: bought.lines, clearsCartOnSuccess: true)))))
        // What checkout asks of the cart once the order is paid, handed in as the app would.
        store.send(.cart(.empty)) { $0.cart.removeAll() }
        await store.finish()
    }

    @Test func theProductPageAloneAsksTheCartToAdd() async {
        let page = ProductDetailFeature.Owned(page: ProductDetailState(product: Self.mug, quantityInCart: 0, canBuyNow: false))
        let store = FeatureTestStore(Self.scope(page, route: [.productList, .productDetail]), reducer: ProductDetailFeature.reducer)
        store.send(.addToCart)
        await store.receive(.productDetail(.delegate(.addToCart(Self.mug))))
        store.send(.back) { $0.shell.route = [.productList] }
        // A key the page does not take changes nothing and asks nothing.
        store.send(.increaseQuantity)
        await store.finish()
    }

    @Test func theProductListAloneSearchesItsCatalogAndNothingElse() async throws {
        var dependencies = StorefrontDependencies.unimplemented()
        dependencies.catalog = Fixtures.bundledCatalog
        let store = FeatureTestStore(
            Self.scope(ProductListFeature.Owned(), route: [.productList]), reducer: ProductListFeature.reducer, dependencies: dependencies)
        store.send(.beginSearch) { $0.list.isEditingQuery = true }
        store.send(.textInput("mug")) {
            $0.list.query = "mug"
            $0.list.isLoading = true
            $0.request = 1
            $0.pending = .count(keepSelection: false)
        }
        let total = try await Fixtures.bundledCatalog.count(matching: "mug")
        let rows = try await Fixtures.bundledCatalog.page(matching: "mug", offset: 0, limit: 50)
        await store.receive(.productList(.counted(request: 1, total: total, from: 0, rows: rows))) {
            $0.list.isLoading = false
            $0.pending = nil
            $0.list.totalCount = total
            $0.list.rows = Array(rows.prefix(10))
            // The first products to arrive end the shop's opening, whichever read brought them.
            $0.isOpening = false
        }
        #expect(total >= 1 && total < 24, "the search narrowed the catalog")
        await store.finish()
    }

    /// Orders a test hands the feature: one order and its history.
    private struct OneOrderHistory: OrderHistory {
        var order: Order
        var events: [OrderEvent]
        func count(customer: String?) async throws -> Int { 1 }
        func orders(customer: String?, offset: Int, limit: Int) async throws -> [Order] { offset == 0 ? [order] : [] }
        func order(number: String) async throws -> Order? { number == order.number ? order : nil }
        func events(orderNumber: String) async throws -> [OrderEvent] { orderNumber == order.number ? events : [] }
    }

    @Test func theOrdersAloneOpenAnOrderReadItsHistoryAndOfferNoCancelWithoutABackOffice() async throws {
        let line = CartLine(productID: Self.mug.id, name: Self.mug.name, unitPrice: Self.mug.price, quantity: 1)
        let placedAt = Date(timeIntervalSince1970: 1_796_000_000)
        let order = Order(
            number: "SF-1001", placedAt: placedAt, lines: [line],
            totals: Cart(currency: .usd, lines: [line]).totals(shipping: Fixtures.standardShipping, tax: TaxPolicy(basisPoints: 0)),
            status: .paid, paymentDescription: "Visa ••4242", shippingMethodLabel: Fixtures.standardShipping.label,
            shipTo: "Jane Appleseed, Cupertino", customerID: "guest")
        let placed = OrderEvent(at: placedAt, actor: .shopper("guest"), change: .placed(total: order.totals.total))
        var dependencies = StorefrontDependencies.unimplemented()
        dependencies.orderHistory = OneOrderHistory(order: order, events: [placed])
        // No back office: the shopper is offered no cancel (the unimplemented one would fail the test if asked).
        dependencies.backOffice = nil
        var owned = OrdersFeature.Owned()
        owned.list.totalCount = 1
        owned.list.rows = [order]
        let store = FeatureTestStore(
            Self.scope(owned, route: [.productList, .orders]), reducer: OrdersFeature.reducer, dependencies: dependencies)
        store.send(.confirm) {
            $0.detail = order
            $0.shell.route = [.productList, .orders, .orderDetail]
        }
        // No outbox was given: the page reads the history and nothing else.
        await store.receive(.orders(.history(order: "SF-1001", .success([placed])))) { $0.events = [placed] }
        store.send(.cancelOrder)
        store.send(.back) { $0.shell.route = [.productList, .orders] }
        await store.finish()
    }

    @Test func theSubscriptionsAloneAskAGuestToSignInAndReadNothing() async {
        // Every dependency unimplemented: a read of the subscriptions or the catalog would fail the test.
        let store = FeatureTestStore(Self.scope(SubscriptionsFeature.Owned(), route: [.productList]), reducer: SubscriptionsFeature.reducer)
        store.send(.subscriptions(.open)) {
            $0.shell.notice = Notice(.error, "Subscriptions are kept on an account: sign in first (i).")
        }
        await store.finish()
    }

    @Test func theCardPageAloneMarksAnExpiredPageAndEscTellsTheSheetNoCardCame() async {
        let page = CardSetupLink(id: "cs_1", url: "https://pay.example/c/cs_1")
        let owned = CardLinkFeature.Owned(link: CardLinkState(url: page.url, qrCode: nil, phase: .waiting), page: page)
        let store = FeatureTestStore(Self.scope(owned, route: [.productList, .account, .cardLink]), reducer: CardLinkFeature.reducer)
        store.send(.cardLink(.expired)) {
            $0.page = nil
            $0.link?.phase = .expired
        }
        // An expired page is not closed again at the provider (an unimplemented provider would fail the test).
        store.send(.back) {
            $0.link = nil
            $0.shell.route = [.productList, .account]
        }
        await store.receive(.cardLink(.delegate(.walletEntryCanceled(.addCard))))
        await store.finish()
    }

    @Test func theAccountAloneTellsAGuestTokensAreForAccountsAndAsksOthersForACardAndSubscriptions() async {
        let scope = CustomerScoped(
            owned: AccountFeature.Owned(), shell: Shell(route: [.productList, .account], form: nil, notice: nil, isWaitingForStorage: false),
            customer: Customer(customerID: "guest", signedIn: nil), context: FeatureContext(cartLines: []))
        let store = FeatureTestStore(scope, reducer: AccountFeature.reducer)
        store.send(.newAPIToken) {
            $0.shell.notice = Notice(.info, "API tokens are for accounts: connect with your SSH key, or sign in.")
        }
        // Adding a card and showing subscriptions are other features' work: asked for, not done here.
        store.send(.addCard)
        await store.receive(.account(.delegate(.addCard)))
        store.send(.showSubscriptions)
        await store.receive(.account(.delegate(.openSubscriptions)))
        await store.finish()
    }

    @Test func aFormAloneKeepsWhatFitsOfAPasteAndHandsAMadeTokenToTheAccount() async {
        let form = FormState(purpose: .apiToken, title: "New API token", message: "", fields: [.init(id: "name", label: "Name")], submitLabel: "Make")
        let scope = Scoped(
            owned: FormFeature.Owned(), shell: Shell(route: [.productList, .account, .form], form: form, notice: nil, isWaitingForStorage: false),
            customer: Customer(customerID: "acct_1", signedIn: nil), context: FeatureContext(cartLines: []))
        let store = FeatureTestStore(scope, reducer: FormFeature.reducer)
        store.send(.textInput(String(repeating: "x", count: 130))) {
            $0.shell.form?.fields[0].value = String(repeating: "x", count: 120)
            $0.shell.form?.fields[0].error = "That is too long."
        }
        store.send(.form(.apiTokenMade(secret: "sfp_secret", name: "cron job"))) {
            $0.shell.form = nil
            $0.shell.route = [.productList, .account]
        }
        await store.receive(.form(.delegate(.showNewAPIToken(secret: "sfp_secret", name: "cron job"))))
        await store.finish()
    }

    @Test func checkoutAloneRefusesAnEmptyCartAndHoldsAPaymentWhileAnEarlierOneIsUnknown() async {
        // Every dependency unimplemented: a wallet read, a charge or a controller would fail the test.
        let store = FeatureTestStore(Self.scope(CheckoutFeature.Owned(), route: [.productList, .cart]), reducer: CheckoutFeature.reducer)
        store.send(.checkout(.begin(CheckoutOrder(lines: [], clearsCartOnSuccess: true)))) {
            $0.shell.notice = Notice(.info, "Your cart is empty. Press s to shop.")
        }
        let line = CartLine(productID: Self.mug.id, name: Self.mug.name, unitPrice: Self.mug.price, quantity: 1)
        let order = CheckoutOrder(lines: [line], clearsCartOnSuccess: true)
        let unknown = OpenOrderCheck(stillOpen: ["SF-1"])
        store.send(.checkout(.walletChecked(order, oneTap: false, canPay: true, noticeBefore: nil, openOrders: .success(unknown)))) {
            $0.shell.notice = Notice(
                .error,
                "Your payment for order SF-1 is still being checked with the payment service. Nothing more is charged until it is known; try again in a moment."
            )
        }
        await store.finish()
    }

    @Test func checkoutReadsTheSheetsWalletOfTheShopperPayingEvenBeforeTheOpeningPointedIt() async throws {
        // A key's shopper who types ahead pays before the opening's effects ran: the device wallet still points at
        // the guest, who has no card. The checkout points it at whoever pays, so the shopper's own card is found.
        let keyHolder = SignedInAccount(provider: .sshKey, userID: "SHA256:abc")
        let wallets = InMemoryWalletRepository([keyHolder.customerID: try SandboxWallet().contents()])
        let owner = WalletOwner("guest")
        var dependencies = StorefrontDependencies.unimplemented()
        dependencies.paymentAuthorization = .onTheSheet(
            wallet: StoredWallet(repository: wallets, owner: owner), methodData: SandboxProcessor.paymentData(for:))
        // The sheet itself is another test's: here it stops at being asked for.
        dependencies.paymentAuthorization.makeController = { _ in nil }
        dependencies.accounts.walletOwner = owner
        dependencies.merchantBackend = MerchantBackendSpy(results: [])
        let scope = Scoped(
            owned: CheckoutFeature.Owned(), shell: Shell(route: [.productList, .cart], form: nil, notice: nil, isWaitingForStorage: false),
            customer: Customer(customerID: keyHolder.customerID, signedIn: keyHolder), context: FeatureContext(cartLines: []))
        let store = FeatureTestStore(scope, reducer: CheckoutFeature.reducer, dependencies: dependencies)
        let line = CartLine(productID: Self.mug.id, name: Self.mug.name, unitPrice: Self.mug.price, quantity: 1)
        let order = CheckoutOrder(lines: [line], clearsCartOnSuccess: true)
        store.send(.checkout(.begin(order))) { $0.isCheckingWallet = true }
        let quote = Self.shop.estimate(for: Cart(currency: .usd, lines: order.lines))
        let method = try #require(quote.methods.first)
        await store.receive(.checkout(.walletChecked(order, oneTap: false, canPay: true, noticeBefore: nil, openOrders: .success(.nothingOpen)))) {
            $0.isCheckingWallet = false
            $0.checkout = Checkout(order: order, oneTap: false, shippingMethod: method, quote: quote, noticeBeforeCheckout: nil)
        }
        #expect(owner.customerID == keyHolder.customerID)
        await store.receive(.checkout(.presented(nil))) {
            $0.checkout = nil
            $0.shell.notice = Notice(.error, "The payment sheet could not be opened for this order.")
        }
        await store.finish()
    }

    @Test func signInAloneMovesASignedOutShopperToTheGuestAndAsksTheCartToHandOver() async {
        let account = SignedInAccount(provider: .account, userID: "acct_1")
        let scope = CustomerScoped(
            owned: SignInFeature.Owned(), shell: Shell(route: [.productList, .account], form: nil, notice: nil, isWaitingForStorage: false),
            customer: Customer(customerID: account.customerID, signedIn: account), context: FeatureContext(cartLines: []))
        let store = FeatureTestStore(scope, reducer: SignInFeature.reducer)
        store.send(.signIn(.signedOut)) {
            $0.signedIn = nil
            $0.customerID = "guest"
            $0.shell.notice = Notice(.info, "Signed out. You are shopping as a guest.")
        }
        // The cart and the account read the new customer's things: asked for, not done here.
        await store.receive(.signIn(.delegate(.customerChanged(leaving: account.customerID, mergingIntoNext: false))))
        // A guest's sign-out touches no tokens (an unimplemented sign-in would fail the test).
        store.send(.signIn(.signOut))
        await store.finish()
    }

    @Test func theConsoleAloneReadsItsQueueAndItsSalesFromTheBackOffice() async throws {
        let stack = TestStack()
        var dependencies = StorefrontDependencies.unimplemented()
        dependencies.backOffice = stack.liveBackOffice
        let store = FeatureTestStore(
            Self.scope(MerchantFeature.Owned(console: MerchantConsoleState(merchantName: "max")), route: [.merchantQueue]),
            reducer: MerchantFeature.reducer, dependencies: dependencies)
        store.send(.merchant(.opened)) {
            $0.console.request = 1
            $0.console.queue.isLoading = true
        }
        await store.receive(.merchant(.queue(request: 1, .success(OrderQueuePage(total: 0, start: 0, rows: []))))) {
            $0.console.queue.isLoading = false
        }
        let sales = try await stack.liveBackOffice.salesSummary()
        store.send(.showSales) { $0.shell.route = [.merchantQueue, .merchantSales] }
        await store.receive(.merchant(.sales(.success(sales)))) { $0.console.sales = sales }
        await store.finish()
    }
}
