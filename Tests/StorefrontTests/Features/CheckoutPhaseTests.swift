import CustomDump
import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import Testing

/// Every checkout phase against every action: what each phase accepts changes exactly what the
/// table says, and everything else leaves the whole state as it was (but for the notice a key clears).
@MainActor
@Suite("Checkout phases")
struct CheckoutPhaseTests {
    /// One sample of every action; the switch below stops compiling when an action is added.
    static let actions: [Action] = [
        .moveUp, .moveDown, .pageUp, .pageDown, .moveToTop, .moveToBottom, .confirm, .back, .addToCart, .showCart, .showShop,
        .showOrders, .showAccount, .beginSearch, .textInput("x"), .deleteBackward, .nextField, .addCard, .addAddress,
        .makeDefault, .newAPIToken, .signOutEverywhere, .signInOrOut, .increaseQuantity, .decreaseQuantity, .removeLine, .pay, .buyNow, .subscribe,
        .showSubscriptions,
        .toggleHelp, .quit, .nextLanguage, .nextMarket,
        .viewportChanged(listRows: 10), .tick, .cancelOrder, .ship, .markDelivered, .refund, .showStock, .showSales, .nextFilter,
        .previousFilter, .toggleRestock, .toggleLowStock, .previousChoice, .nextChoice,
    ]

    private static func sampled(_ action: Action) -> Bool {
        switch action {
        case .moveUp, .moveDown, .pageUp, .pageDown, .moveToTop, .moveToBottom, .confirm, .back, .addToCart, .showCart, .showShop,
            .showOrders, .showAccount, .beginSearch, .textInput, .deleteBackward, .nextField, .addCard, .addAddress, .makeDefault, .newAPIToken,
            .signOutEverywhere, .signInOrOut, .increaseQuantity, .decreaseQuantity, .removeLine, .pay, .buyNow, .subscribe, .showSubscriptions,
            .toggleHelp, .quit, .nextLanguage, .nextMarket,
            .viewportChanged,
            .tick,
            .cancelOrder, .ship, .markDelivered, .refund, .showStock, .showSales, .nextFilter, .previousFilter, .toggleRestock, .toggleLowStock,
            .previousChoice, .nextChoice, .showCatalog, .newProduct, .togglePublished, .archiveProduct, .showDiscounts, .newDiscount,
            .toggleDiscountPaused, .deleteDiscount, .showCustomers, .newNote:
            actions.contains { $0.caseName == action.caseName }
        }
    }

    /// What an accepted action does: the change to the state before it, and whether it starts an effect.
    private struct Accepted {
        var action: Action
        var startsEffect = false
        var change: (inout AppState) -> Void
    }

    private static let john = Contact(
        id: "contact-john", name: "John Appleseed", email: "john@example.com", phone: "",
        address: PostalAddress(street: "2 Park Way", city: "Cupertino", region: "US-CA", postalCode: "95014", countryCode: "US")
    )

    /// A store over a sheet-controller spy, with the spy (the factory holds it weakly).
    private func store(supportsNetworks: Bool) async -> (TestStore, PaymentAuthorizationSpy) {
        var stack = TestStack()
        let spy = PaymentAuthorizationSpy()
        spy.supportsNetworks = supportsNetworks
        spy.options = PaymentSheetOptions(
            paymentMethods: [Fixtures.visa], contacts: [Fixtures.jane, Self.john], selectedPaymentMethod: Fixtures.visa,
            selectedContact: Fixtures.jane)
        stack.paymentAuthorization = spy.authorization
        stack.paymentProvider = PaymentProviderStub()
        stack.merchantBackend = MerchantBackendSpy(results: [])
        return await (TestStore(dependencies: stack.dependencies), spy)
    }

    @Test func everyActionIsSampled() {
        #expect(Self.actions.allSatisfy(Self.sampled))
    }

    @Test func everyPhaseAgainstEveryAction() async throws {
        let (sheetStore, sheetSpy) = await store(supportsNetworks: true)
        // The sheet up, the cursor on "Ship to" so moves either way show.
        await sheetStore.setUp(.addToCart, .showCart, .pay, .moveDown)
        let reviewing = sheetStore.state
        try #require(reviewing.paymentSheet?.phase == .reviewing)
        let choosing = sheetStore.outcome(of: .confirm, from: reviewing).state
        let confirming = sheetStore.outcome(of: .pay, from: reviewing).state
        let authorizing = sheetStore.outcome(of: .confirm, from: confirming).state
        var processing = authorizing
        processing.checkout.sheet?.phase = .processing
        let check = BankCheck(url: "https://bank.example/3ds/pi_1", qrCode: nil)
        var checkingWithBank = authorizing
        checkingWithBank.checkout.sheet?.phase = .checkingWithBank(check)
        var canceling = check
        canceling.isCanceling = true
        var checkingPayment = authorizing
        checkingPayment.checkout.sheet?.phase = .checkingPayment(isStopping: false)

        let (cardStore, cardSpy) = await store(supportsNetworks: false)
        await cardStore.setUp(.addToCart, .showCart, .pay, .moveDown)
        let needsCard = cardStore.state
        try #require(needsCard.paymentSheet?.phase == .needsCard)

        let addresses = [Fixtures.jane, Self.john].map { ChooserState.Option(title: .verbatim($0.name), detail: .verbatim($0.address.singleLine)) }
        let prompt = try #require(confirming.paymentSheet?.authorizationPrompt)
        let table: [(name: String, store: TestStore, start: AppState, accepts: [Accepted])] = [
            (
                "needsCard", cardStore, needsCard,
                [
                    Accepted(action: .moveUp) { $0.checkout.sheet?.selectedRow = .card },
                    Accepted(action: .moveDown) { $0.checkout.sheet?.selectedRow = .shippingMethod },
                    Accepted(action: .pageUp) { $0.checkout.sheet?.selectedRow = needsCard.checkout.sheet?.rows.first ?? .card },
                    Accepted(action: .moveToTop) { $0.checkout.sheet?.selectedRow = needsCard.checkout.sheet?.rows.first ?? .card },
                    Accepted(action: .pageDown) { $0.checkout.sheet?.selectedRow = needsCard.checkout.sheet?.rows.last ?? .card },
                    Accepted(action: .moveToBottom) { $0.checkout.sheet?.selectedRow = needsCard.checkout.sheet?.rows.last ?? .card },
                    Accepted(action: .confirm) { state in
                        state.shell.route.append(.form)
                        state.shell.form = cardStore.outcome(of: .confirm, from: needsCard).state.shell.form
                        #expect(state.shell.form?.purpose == .addCard)
                    },
                    Accepted(action: .pay) { $0.shell.notice = Notice(.error, "No card in your wallet works here. Set up a card to pay.") },
                    Accepted(action: .back) { state in
                        state.checkout.sheetAwaits = nil
                        state.checkout.sheet = nil
                        state.shell.route.removeLast()
                    },
                ]
            ),
            (
                "reviewing", sheetStore, reviewing,
                [
                    Accepted(action: .moveUp) { $0.checkout.sheet?.selectedRow = .card },
                    Accepted(action: .moveDown) { $0.checkout.sheet?.selectedRow = .shippingMethod },
                    Accepted(action: .pageUp) { $0.checkout.sheet?.selectedRow = reviewing.checkout.sheet?.rows.first ?? .card },
                    Accepted(action: .moveToTop) { $0.checkout.sheet?.selectedRow = reviewing.checkout.sheet?.rows.first ?? .card },
                    Accepted(action: .pageDown) { $0.checkout.sheet?.selectedRow = reviewing.checkout.sheet?.rows.last ?? .card },
                    Accepted(action: .moveToBottom) { $0.checkout.sheet?.selectedRow = reviewing.checkout.sheet?.rows.last ?? .card },
                    Accepted(action: .confirm) {
                        $0.checkout.sheet?.phase = .choosing(
                            ChooserState(row: .shippingAddress, options: addresses, selectedIndex: 0, addTitle: "Add a new address"))
                    },
                    Accepted(action: .pay) { $0.checkout.sheet?.phase = .confirming(prompt: prompt) },
                    // Esc closes the sheet at once: nothing was authorized, so nothing is said.
                    Accepted(action: .back) { state in
                        state.checkout.checkout = nil
                        state.checkout.sheet = nil
                        state.shell.route.removeLast()
                    },
                ]
            ),
            (
                "choosing", sheetStore, choosing,
                [
                    Accepted(action: .moveUp) { _ in },
                    Accepted(action: .moveDown) {
                        $0.checkout.sheet?.phase = .choosing(
                            ChooserState(row: .shippingAddress, options: addresses, selectedIndex: 1, addTitle: "Add a new address"))
                    },
                    // Home, End and the page keys, as every list takes them: the add row is the last.
                    Accepted(action: .pageUp) { _ in },
                    Accepted(action: .moveToTop) { _ in },
                    Accepted(action: .pageDown) {
                        $0.checkout.sheet?.phase = .choosing(
                            ChooserState(row: .shippingAddress, options: addresses, selectedIndex: addresses.count, addTitle: "Add a new address"))
                    },
                    Accepted(action: .moveToBottom) {
                        $0.checkout.sheet?.phase = .choosing(
                            ChooserState(row: .shippingAddress, options: addresses, selectedIndex: addresses.count, addTitle: "Add a new address"))
                    },
                    Accepted(action: .back) { $0.checkout.sheet?.phase = .reviewing },
                    // The choice, its summary and its contact's errors are the checkout's: no round trip.
                    Accepted(action: .confirm) { $0.checkout.sheet?.phase = .reviewing },
                ]
            ),
            (
                "confirming", sheetStore, confirming,
                [
                    Accepted(action: .confirm, startsEffect: true) {
                        $0.checkout.sheet?.phase = .authorizing
                        $0.checkout.checkout?.didAuthorize = true
                    },
                    Accepted(action: .back) { $0.checkout.sheet?.phase = .reviewing },
                ]
            ),
            ("authorizing", sheetStore, authorizing, []),
            ("processing", sheetStore, processing, []),
            // Only Esc: the charge waiting for the bank is asked to stop waiting (`.stop`), and gives it up.
            (
                "checkingWithBank", sheetStore, checkingWithBank,
                [
                    Accepted(action: .back, startsEffect: true) { $0.checkout.sheet?.phase = .checkingWithBank(canceling) }
                ]
            ),
            // Only Esc: the shop stops asking whether the unanswered charge went through.
            (
                "checkingPayment", sheetStore, checkingPayment,
                [
                    Accepted(action: .back, startsEffect: true) { $0.checkout.sheet?.phase = .checkingPayment(isStopping: true) }
                ]
            ),
        ]

        var checked = 0
        for (name, store, start, accepts) in table {
            for action in Self.actions {
                var expected = start
                expected.noticeBeforeAction = start.notice
                var startsEffect = false
                if let accepted = accepts.first(where: { $0.action == action }) {
                    expected.shell.notice = nil
                    accepted.change(&expected)
                    startsEffect = accepted.startsEffect
                } else {
                    Self.appLevel(action, &expected)
                    startsEffect = action.caseName == "viewportChanged"
                }
                let outcome = store.outcome(of: action, from: start)
                expectNoDifference(outcome.state, expected, "\(name) × \(action)")
                #expect(outcome.startsEffect == startsEffect, "\(name) × \(action): effect")
                checked += 1
            }
        }
        #expect(checked == 8 * Self.actions.count)
        #expect(sheetSpy.controllers.count == 1 && cardSpy.controllers.isEmpty)
    }

    /// What the app does with an action the sheet does not take: help, quit, ticks and sizes are
    /// the app's; any other key only clears the notice.
    private static func appLevel(_ action: Action, _ state: inout AppState) {
        switch action {
        case .viewportChanged:
            // The list under the sheet re-reads its window for the new size, keeping its rows meanwhile.
            state.productList.request += 1
            state.productList.pending = .count(keepSelection: true)
            state.productList.list.isLoading = true
        case .quit: state.isQuitting = true
        case .tick: if state.screens.isBusy { state.spinnerPhase += 1 }
        case .toggleHelp:
            state.shell.notice = nil
            state.isHelpShown = true
        default: state.shell.notice = nil
        }
    }
}

extension Action {
    /// The case without its payload, so samples match whatever they carry.
    fileprivate var caseName: String { String(describing: self).prefix { $0 != "(" }.description }
}
