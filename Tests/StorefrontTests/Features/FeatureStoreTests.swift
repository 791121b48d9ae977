import CustomDump
import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import Testing

/// The test-store style: one action, the whole state change; effects' answers received one by one.
@MainActor
@Suite("Features, one action at a time")
struct FeatureStoreTests {
    private let stack = TestStack()
    private var shop: ShopProfile { stack.catalog.shop }

    @Test func movingDownSelectsTheNextProduct() async {
        let store = await TestStore(dependencies: stack.dependencies)
        store.send(.moveDown) { $0.productList.list.selectedIndex = 1 }
        store.send(.moveUp) { $0.productList.list.selectedIndex = 0 }
    }

    /// Back on the list from a product's page, the list is read again for edits made meanwhile, its rows unmarked: an
    /// answer that finds the catalog as it was changes nothing on screen, so the key costs one frame, not two.
    @Test func backOnTheListReadsItAgainWithoutMarkingItLoading() async throws {
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.moveDown, .confirm)
        store.send(.back) {
            $0.shell.route = [.productList]
            $0.productList.request += 1
            $0.productList.pending = .count(keepSelection: true)
        }
        let rows = try await stack.catalog.page(matching: "", offset: 0, limit: 5 * store.state.listRowCapacity)
        let total = store.state.productList.list.totalCount
        await store.receive(.productList(.counted(request: store.state.productList.request, total: total, from: 0, rows: rows))) {
            $0.productList.pending = nil
        }
        #expect(store.state.productList.list.selectedIndex == 1, "the selection stays where the shopper left it")
        await store.finish()
    }

    /// A move that leaves the rows on screen while that unmarked read is pending marks the list loading: the window
    /// follows the selection only once the count answers.
    @Test func aMoveOffTheRowsWhileTheListIsReadAgainMarksItLoading() async throws {
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.confirm)
        store.send(.back) {
            $0.shell.route = [.productList]
            $0.productList.request += 1
            $0.productList.pending = .count(keepSelection: true)
        }
        store.send(.moveToBottom) {
            $0.productList.list.selectedIndex = $0.productList.list.totalCount - 1
            $0.productList.list.isLoading = true
        }
        await store.skipInFlightEffects()
    }

    @Test func typingASearchReadsTheMatchingWindow() async throws {
        let store = await TestStore(dependencies: stack.dependencies)
        store.send(.beginSearch) { $0.productList.list.isEditingQuery = true }
        // The query shows at once, the list marked loading; the matches follow from the catalog.
        store.send(.textInput("mug")) { $0.expectSearchStarted(query: "mug") }
        try await receiveMatches(of: "mug", in: store)
        #expect(store.state.productList.list.totalCount < 10, "the search narrowed the list")
        await store.finish()
    }

    /// Receives the catalog's answer to the search for `query`: the count and the first window of its matches.
    private func receiveMatches(of query: String, in store: TestStore) async throws {
        let total = try await stack.catalog.count(matching: query)
        let rows = try await stack.catalog.page(matching: query, offset: 0, limit: 50)
        await store.receive(.productList(.counted(request: store.state.productList.request, total: total, from: 0, rows: rows))) {
            $0.productList.list.isLoading = false
            $0.productList.pending = nil
            $0.productList.list.totalCount = total
            $0.productList.list.rows = Array(rows.prefix(10))
        }
    }

    @Test func aLateAnswerToASupersededSearchIsDropped() async throws {
        let store = await TestStore(dependencies: stack.dependencies)
        store.send(.beginSearch) { $0.productList.list.isEditingQuery = true }
        store.send(.textInput("m")) { $0.expectSearchStarted(query: "m") }
        let superseded = store.state.productList.request
        // The next key replaces the first search; an answer to it that still arrived changes nothing.
        store.send(.textInput("u")) {
            $0.productList.list.query = "mu"
            $0.productList.request += 1
        }
        store.send(.productList(.counted(request: superseded, total: 1, from: 0, rows: []))) { _ in }
        try await receiveMatches(of: "mu", in: store)
        await store.finish()
    }

    @Test func addingAProductPutsItInTheCartTheBadgeAndTheNotice() async {
        let store = await TestStore(dependencies: stack.dependencies)
        let product = store.state.productList.list.rows[0]
        let line = CartLine(productID: product.id, name: product.name, unitPrice: product.price, quantity: 1)
        store.send(.addToCart) {
            $0.cart.cart = Cart(currency: shop.currency, lines: [line])
            $0.cart.screen.lines = [line]
            $0.cart.screen.totals = shop.estimatedTotals($0.cart.cart)
            $0.cart.badge = CartBadge(itemCount: 1, subtotal: product.price)
            // The guest's sandbox wallet has a default card and address, and One-Tap for the cart is on.
            $0.cart.screen.canBuyNow = true
            $0.shell.notice = Notice(.info, "Added \(product.name) to your cart.")
            // Added on the stock its page read; the fresh stock is read once the frame is out.
            $0.cart.isStockCheckInFlight = true
        }
        await store.receive(.cart(.stockChecked([.afterAdding(line, stock: product.stock)]))) {
            $0.cart.isStockCheckInFlight = false
        }
        await store.finish()
    }

    @Test func signingInMovesTheShopToTheAccount() async throws {
        var stack = stack
        let factory = SignInControllerFactorySpy(outcome: .success(TestCredential(user: "user-1", email: "jane@example.com", fullName: "Jane")))
        stack.signIn = SignInServices(
            makeController: factory.factory, provider: SignInProviderStub(), auth: AuthManager(credentials: CredentialRepositorySpy()))
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.showAccount)
        // The spy answers at once: the credential arrives in the same step, and its tokens are kept by an effect.
        // The state keeps the sign-in's session id and nonce; the effect makes the controller, which answers at once.
        store.send(.signInOrOut) {
            $0.signIn.progress = SignInProgress(signInID: 1, nonce: store.state.signIn.progress?.nonce)
            $0.signIn.nextSignInID = 2
        }
        #expect(store.state.signIn.progress?.nonce != nil)
        let credential = SignInCompletion(TestCredential(user: "user-1", email: "jane@example.com", fullName: "Jane"))
        await store.receive(.signIn(.credentialReceived(credential))) { _ in }
        await store.receive(.signIn(.accountSaved(credential))) {
            $0.signIn.progress = nil
            $0.customer.signedIn = SignedInAccount(provider: .sandboxID, userID: "user-1")
            $0.customer.customerID = "sandbox-id:user-1"
            $0.customer.profile = AccountProfile(customerID: "sandbox-id:user-1", name: "Jane", email: "jane@example.com")
            $0.account.shopperLabel = "Jane"
            $0.account.screen.title = "Jane"
            $0.account.screen.detail = "jane@example.com · signed in with Sandbox ID"
            $0.account.screen.isSignedIn = true
            $0.account.screen.canSignIn = false
            $0.account.screen.canSignOut = true
            $0.shell.notice = Notice(.info, "Signed in as Jane.")
        }
        // The account's wallet follows: empty, so the guest's cards leave the screen.
        await store.receive(
            .account(
                .loaded(
                    WalletRead(
                        customer: "sandbox-id:user-1", wallet: .success(WalletContents()),
                        profile: AccountProfile(customerID: "sandbox-id:user-1", name: "Jane", email: "jane@example.com"), notice: nil
                    )))
        ) {
            $0.customer.wallet = WalletContents()
            $0.account.screen.rows = []
            $0.account.screen.selectedIndex = 0
            $0.account.screen.isOneTapReady = false
        }
        #expect(factory.made.count == 1)
        await store.finish()
    }

    @Test func payingWalksThePhasesAndEndsOnTheThankYouScreen() async throws {
        var stack = stack
        let spy = PaymentAuthorizationSpy()
        stack.paymentAuthorization = spy.authorization
        stack.paymentProvider = PaymentProviderStub()
        stack.merchantBackend = MerchantBackendSpy(results: [
            .success(Fixtures.confirmation("SF-777777", total: Money(minorUnits: 6_928, currency: .usd)))
        ])
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.addToCart, .showCart)
        let lines = store.state.cart.cart.lines
        let standard = Fixtures.standardShipping
        // Jane ships to California: the sheet charges its rate, not the 8.25 % the cart estimated at home.
        let california = TaxPolicy(label: "Sales tax", basisPoints: 725, jurisdiction: "US-CA")

        store.send(.pay) { $0.checkout.isCheckingWallet = true }
        #expect(!store.state.isAcceptingInput, "keys wait while the wallet is checked")
        await store.receive(
            .checkout(.walletChecked(CheckoutOrder(lines: lines, clearsCartOnSuccess: true), oneTap: false, canPay: true, noticeBefore: nil))
        ) {
            $0.checkout.isCheckingWallet = false
            // The state holds the checkout; the effect makes a controller and asks it what the sheet offers.
            $0.checkout.checkout = Checkout(
                order: CheckoutOrder(lines: lines, clearsCartOnSuccess: true), oneTap: false, shippingMethod: standard,
                quote: shop.estimate(for: Cart(currency: shop.currency, lines: lines)), noticeBeforeCheckout: nil
            )
        }
        #expect(store.state.isPresentingSheet && !store.state.isAcceptingInput, "keys wait while the sheet is on its way")
        let summary = [
            SummaryItem(label: "Subtotal", amount: lines[0].total),
            SummaryItem(label: "Shipping (\(standard.label))", amount: standard.cost(forSubtotal: lines[0].total)),
            SummaryItem(label: "Sales tax", amount: california.tax(on: lines[0].total)),
            SummaryItem(
                label: .verbatim(shop.name),
                amount: lines[0].total + standard.cost(forSubtotal: lines[0].total) + california.tax(on: lines[0].total)),
        ]
        await store.receive(.checkout(.presented(Fixtures.sheetOptions))) {
            $0.checkout.checkout?.options = Fixtures.sheetOptions
            $0.checkout.checkout?.card = Fixtures.visa
            $0.checkout.checkout?.shipTo = Fixtures.jane
            $0.checkout.checkout?.contact = Fixtures.jane
            $0.checkout.checkout?.quote = ShippingQuote(
                region: "us", methods: shop.estimate(for: Cart(currency: shop.currency, lines: lines)).methods, tax: california)
            $0.shell.route = [.productList, .cart, .paymentSheet]
            var sheet = PaymentSheetState(
                merchantName: shop.name,
                rowValues: [
                    .card: "Visa ••4242  Test: succeeds",
                    .shippingAddress: "Jane Appleseed, 1 Loop Road, Cupertino CA 95014, US",
                    .shippingMethod: "\(standard.label) · \(standard.detail)",
                    .contact: "Receipt to jane@example.com · +1 555 0100",
                    .discountCode: "Add a code",
                    .items: "1 × Dusk Keycap Set",
                ],
                summaryItems: summary, phase: .reviewing
            )
            sheet.unchosenRows = []
            // What it buys, line by line, for the Items row.
            sheet.items = [SheetItem(title: "1 × Dusk Keycap Set", amount: lines[0].total)]
            sheet.itemQuantity = 1
            $0.checkout.sheet = sheet
        }
        let total = try #require(summary.last)
        store.send(.pay) {
            $0.checkout.sheet?.phase = .confirming(prompt: "Pay \(shop.name) \(total.amount.formatted)? Enter to confirm, Esc to cancel")
        }
        store.send(.confirm) {
            $0.checkout.sheet?.phase = .authorizing
            $0.checkout.checkout?.didAuthorize = true
        }
        await store.receive(.checkout(.processingStarted)) { $0.checkout.sheet?.phase = .processing }
        let confirmation = ConfirmationState(
            orderNumber: "SF-777777", total: Money(minorUnits: 6_928, currency: .usd), itemCount: 1,
            paymentDescription: "Visa ••4242", shipTo: "Jane Appleseed, 1 Loop Road, Cupertino CA 95014, US", shippingMethodLabel: standard.label
        )
        await store.receive(.checkout(.finished(.paid(confirmation)))) {
            $0.cart.cart = Cart(currency: shop.currency)
            $0.cart.screen = CartScreenState(totals: shop.estimatedTotals(Cart(currency: shop.currency)))
            $0.cart.screen.taxLabel = "Sales tax"
            $0.cart.screen.shippingLabel = standard.label
            $0.cart.badge = CartBadge(itemCount: 0, subtotal: .zero(shop.currency))
            $0.checkout.checkout = nil
            $0.checkout.sheet = nil
            $0.checkout.confirmation = confirmation
            $0.shell.route = [.productList, .confirmation]
        }
        await store.finish()
        #expect(spy.controllers.first?.calls == ["present"], "the controller presented the sheet and took no part in the charge")
    }
}

extension AppState {
    /// What a key that starts a search for `query` changes: the query, and the list marked loading under a new request.
    fileprivate mutating func expectSearchStarted(query: String) {
        productList.list.query = query
        productList.list.isLoading = true
        productList.request += 1
        productList.pending = .count(keepSelection: false)
    }
}
