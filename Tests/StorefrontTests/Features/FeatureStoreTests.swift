import CustomDump
import Testing
import StoreClients
import StoreModels
import StorefrontCore
import StorefrontTesting

/// The test-store style: one action, the whole state change; effects' answers received one by one.
@MainActor
@Suite("Features, one action at a time")
struct FeatureStoreTests {
    private let stack = TestStack()
    private var shop: StoreProfile { stack.catalog.store }

    @Test func movingDownSelectsTheNextProduct() {
        let store = TestStore(dependencies: stack.dependencies)
        store.send(.moveDown) { $0.productList.selectedIndex = 1 }
        store.send(.moveUp) { $0.productList.selectedIndex = 0 }
    }

    @Test func typingASearchReadsTheMatchingWindow() throws {
        let store = TestStore(dependencies: stack.dependencies)
        store.send(.beginSearch) { $0.productList.isEditingQuery = true }
        try store.send(.textInput("mug")) {
            $0.productList.query = "mug"
            $0.productList.totalCount = try stack.catalog.count(matching: "mug")
            $0.productList.rows = try stack.catalog.page(matching: "mug", offset: 0, limit: 10)
        }
        #expect(store.state.productList.totalCount < 10, "the search narrowed the list")
    }

    @Test func addingAProductPutsItInTheCartTheBadgeAndTheNotice() async {
        let store = TestStore(dependencies: stack.dependencies)
        let product = store.state.productList.rows[0]
        let line = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)
        store.send(.addToCart) {
            $0.cart = Cart(currency: shop.currency, lines: [line])
            $0.screens.cart.lines = [line]
            $0.screens.cart.totals = $0.cart.totals(shipping: shop.shippingMethods.first, tax: shop.tax)
            $0.cartBadge = CartBadge(itemCount: 1, subtotal: product.price)
            // The guest's sandbox wallet has a default card and address, and One-Tap for the cart is on.
            $0.screens.cart.canBuyNow = true
            $0.notice = Notice(.info, "Added \(product.name) to your cart.")
            // Added on the stock its page read; the fresh stock is read once the frame is out.
            $0.stockChecksDue = [product.id: 0]
            $0.isCartFollowUpDue = true
        }
        await store.receive(.cartFollowUpDue) {
            $0.stockChecksDue = [:]
            $0.isCartFollowUpDue = false
        }
    }

    @Test func signingInMovesTheShopToTheAccount() async {
        var stack = stack
        let factory = SignInControllerFactorySpy(outcome: .success(TestCredential(user: "user-1", email: "jane@example.com", fullName: "Jane")))
        stack.signIn = SignInServices(makeController: factory.factory, provider: SignInProviderStub(), auth: AuthManager(store: CredentialStoreSpy()))
        let store = TestStore(dependencies: stack.dependencies)
        await store.setUp(.showAccount)
        store.send(.signInOrOut) {
            // The spy answers at once: the credential arrives in the same step, so one frame shows the result.
            $0.signedIn = SignedInAccount(provider: .sandboxID, userID: "user-1")
            $0.customerID = "sandbox-id:user-1"
            $0.wallet = WalletContents()
            $0.shopperLabel = "Jane"
            $0.account = AccountState()
            $0.account.title = "Jane"
            $0.account.detail = "jane@example.com · signed in with Sandbox ID"
            $0.account.isSignedIn = true
            $0.account.canSignOut = true
            $0.notice = Notice(.info, "Signed in as Jane.")
        }
        #expect(factory.made.count == 1)
        await store.finish()
    }

    @Test func payingWalksThePhasesAndEndsOnTheThankYouScreen() async throws {
        var stack = stack
        let spy = PaymentAuthorizationSpy()
        stack.paymentAuthorization = spy.authorization
        stack.paymentProvider = PaymentProviderStub()
        stack.merchantBackend = MerchantBackendSpy(results: [.success(Fixtures.confirmation("SF-777777", total: Money(minorUnits: 6_928, currency: .usd)))])
        let store = TestStore(dependencies: stack.dependencies)
        await store.setUp(.addToCart, .showCart)
        let lines = store.state.cart.lines
        let standard = try #require(shop.shippingMethods.first)

        try store.send(.pay) {
            let session = try #require(store.state.checkout?.session, "the checkout holds the controller's session")
            $0.checkout = Checkout(
                session: session, order: CheckoutOrder(lines: lines, clearsCartOnSuccess: true), oneTap: false,
                shippingMethod: standard, noticeBeforeCheckout: nil
            )
        }
        #expect(store.state.isPresentingSheet && !store.state.isAcceptingInput, "keys wait while the sheet is on its way")
        let summary = [
            SummaryItem(label: "Subtotal", amount: lines[0].total),
            SummaryItem(label: "Shipping (\(standard.label))", amount: standard.cost(forSubtotal: lines[0].total)),
            SummaryItem(label: shop.tax.label, amount: store.state.screens.cart.totals.tax),
            SummaryItem(label: shop.name, amount: store.state.screens.cart.totals.total),
        ]
        await store.receive(.checkout(.presented(Fixtures.sheetOptions))) {
            $0.checkout?.options = Fixtures.sheetOptions
            $0.checkout?.card = Fixtures.visa
            $0.checkout?.shipTo = Fixtures.jane
            $0.checkout?.contact = Fixtures.jane
            $0.route = [.productList, .cart, .paymentSheet]
            var sheet = PaymentSheetState(
                merchantName: shop.name,
                rowValues: [
                    .card: "Visa ••4242  Test: succeeds",
                    .shippingAddress: "Jane Appleseed, 1 Loop Road, Cupertino 95014, US",
                    .shippingMethod: "\(standard.label) · \(standard.detail)",
                    .contact: "jane@example.com · +1 555 0100",
                ],
                summaryItems: summary, phase: .reviewing
            )
            sheet.unchosenRows = []
            $0.paymentSheet = sheet
        }
        let total = try #require(summary.last)
        store.send(.pay) { $0.paymentSheet?.phase = .confirming(prompt: "Pay \(shop.name) \(total.amount.formatted)? Enter to confirm, Esc to cancel") }
        store.send(.confirm) { $0.paymentSheet?.phase = .authorizing }
        await store.receive(.checkout(.processingStarted)) { $0.paymentSheet?.phase = .processing }
        let confirmation = ConfirmationState(
            orderNumber: "SF-777777", total: Money(minorUnits: 6_928, currency: .usd), itemCount: 1,
            paymentDescription: "Visa ••4242", shipTo: "Jane Appleseed, 1 Loop Road, Cupertino 95014, US", shippingMethodLabel: standard.label
        )
        await store.receive(.checkout(.finished(.paid(confirmation)))) {
            $0.cart = Cart(currency: shop.currency)
            $0.screens.cart = CartScreenState(totals: Cart(currency: shop.currency).totals(shipping: standard, tax: shop.tax))
            $0.screens.cart.shippingLabel = standard.label
            $0.cartBadge = CartBadge(itemCount: 0, subtotal: .zero(shop.currency))
            $0.checkout = nil
            $0.paymentSheet = nil
            $0.confirmation = confirmation
            $0.route = [.productList, .confirmation]
        }
        await store.finish()
        #expect(spy.controllers.first?.calls == ["present", "authorize", "dismiss"], "the sheet went away without a second report")
    }
}
