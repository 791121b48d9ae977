import CustomDump
import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import Testing

/// A first purchase with something missing from the wallet: Pay points at what is missing, an
/// empty chooser opens the form, every chooser ends with "Add a new …", and what the form saves is
/// chosen on the sheet.
@MainActor
@Suite("Guided checkout")
struct GuidedCheckoutTests {
    /// A store whose wallet has a card and no address, with the sheet open on the cart.
    private func sheetWithoutAnAddress() async throws -> (TestStore, PaymentAuthorizationSpy) {
        var stack = TestStack()
        let spy = PaymentAuthorizationSpy()
        spy.options = PaymentSheetOptions(paymentMethods: [Fixtures.visa], contacts: [], selectedPaymentMethod: Fixtures.visa, selectedContact: nil)
        stack.paymentAuthorization = spy.authorization
        stack.paymentProvider = PaymentProviderStub()
        stack.merchantBackend = MerchantBackendSpy(results: [])
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.addToCart, .showCart, .pay)
        try #require(store.state.paymentSheet?.phase == .reviewing)
        return (store, spy)
    }

    @Test func aSheetWithoutAnAddressSaysSoAndPayIsNotOffered() async throws {
        let (store, _) = try await sheetWithoutAnAddress()
        let sheet = try #require(store.state.paymentSheet)
        #expect(sheet.unchosenRows == [.shippingAddress, .contact])
        #expect(!sheet.isPayEnabled)
        #expect(sheet.status == "Add a shipping address to pay.", "the reason is on the sheet before any key")
        #expect(!sheet.isStatusError, "told, not scolded, until the shopper tries to pay")
    }

    @Test func payWithTheAddressMissingMovesToShipToMarksItAndSaysWhy() async throws {
        let (store, _) = try await sheetWithoutAnAddress()
        store.send(.pay) {
            $0.checkout.sheet?.selectedRow = .shippingAddress
            $0.checkout.sheet?.markedRow = .shippingAddress
            $0.shell.notice = Notice(.error, "Add a shipping address to pay.")
        }
        await store.finish()
    }

    @Test func enterOnAnEmptyShipToOpensTheAddressFormAtOnce() async throws {
        let (store, _) = try await sheetWithoutAnAddress()
        store.send(.moveDown) { $0.checkout.sheet?.selectedRow = .shippingAddress }
        let opened = store.outcome(of: .confirm, from: store.state).state
        store.send(.confirm) {
            $0.shell.route.append(.form)
            $0.shell.form = opened.form
            $0.checkout.sheetAwaits = .entry(.shippingAddress)
            $0.shell.notice = Notice(.info, "No address yet: add one to ship to.")
        }
        #expect(store.state.form?.purpose == .addAddress)
        await store.finish()
    }

    @Test func everyChooserButShippingEndsWithAddANewRow() async throws {
        let (store, _) = try await sheetWithoutAnAddress()
        store.send(.confirm) {
            $0.checkout.sheet?.phase = .choosing(
                ChooserState(
                    row: .card, options: [ChooserState.Option(title: "Visa ••4242", detail: "Test: succeeds")], selectedIndex: 0,
                    addTitle: "Add a new card"
                ))
        }
        store.send(.moveDown) {
            $0.checkout.sheet?.phase = .choosing(
                ChooserState(
                    row: .card, options: [ChooserState.Option(title: "Visa ••4242", detail: "Test: succeeds")], selectedIndex: 1,
                    addTitle: "Add a new card"
                ))
        }
        #expect(store.state.paymentSheet?.chooser?.isOnAddRow == true)
        let opened = store.outcome(of: .confirm, from: store.state).state
        store.send(.confirm) {
            $0.checkout.sheet?.phase = .reviewing
            $0.shell.route.append(.form)
            $0.shell.form = opened.form
            $0.checkout.sheetAwaits = .entry(.card)
        }
        #expect(store.state.form?.purpose == .addCard)
        store.send(.back) {
            $0.shell.route.removeLast()
            $0.shell.form = nil
            $0.checkout.sheetAwaits = nil
            $0.shell.notice = Notice(.info, "No card was added.")
        }
        store.send(.moveDown) {
            $0.checkout.sheet?.selectedRow = .shippingAddress
            $0.shell.notice = nil
        }
        store.send(.moveDown) { $0.checkout.sheet?.selectedRow = .shippingMethod }
        let shippingChooser = store.outcome(of: .confirm, from: store.state).state.paymentSheet
        store.send(.confirm) { $0.checkout.sheet = shippingChooser }
        #expect(store.state.paymentSheet?.chooser?.row == .shippingMethod)
        #expect(store.state.paymentSheet?.chooser?.addTitle == nil, "shipping methods are the shop's: nothing to add")
        await store.finish()
    }

    @Test func theAddressTheFormSavesIsChosenForShipToAndContactAndPayIsReady() async throws {
        let (store, _) = try await sheetWithoutAnAddress()
        await store.setUp(.moveDown, .confirm)
        for value in ["Sam Shopper", "1 Loop Road", "", "Cupertino", "CA", "95014", "sam@example.com", ""] {
            if !value.isEmpty { await store.setUp(.textInput(value)) }
            await store.setUp(.confirm)
        }
        let checkout = try #require(store.state.checkout.checkout)
        let saved = try #require(checkout.shipTo)
        #expect(saved.name == "Sam Shopper" && saved.address.street == "1 Loop Road")
        #expect(checkout.contact == saved, "one address both ships and contacts")
        #expect(checkout.options.contacts == [saved], "the sheet offers it from now on")
        #expect(store.state.form == nil && store.state.screen == .paymentSheet, "back on the sheet")
        #expect(store.state.checkout.sheetAwaits == nil)
        let sheet = try #require(store.state.paymentSheet)
        #expect(sheet.unchosenRows.isEmpty && sheet.isPayEnabled && sheet.status == nil)
        #expect(store.state.customer.wallet.addresses.last?.name == "Sam Shopper", "and it is in the wallet")
    }
}
