import Testing
import StoreClients
import StoreModels
import StorefrontCore
import StorefrontTesting

/// A double a test did not set up fails that test, instead of quietly answering.
@MainActor
@Suite("Doubles that were not set up")
struct DoublesTests {
    @Test func aMerchantBackendSpyPastItsScriptFailsTheTest() async {
        let backend = MerchantBackendSpy(results: [])
        let totals = CartTotals(subtotal: .zero(.usd), shipping: .zero(.usd), tax: .zero(.usd))
        let draft = OrderDraft(lines: [], totals: totals, shippingMethod: Fixtures.standardShipping, shippingContact: Fixtures.jane, customerID: "guest")
        await withKnownIssue {
            _ = try? await backend.processPayment(token: PaymentToken(id: "tok", paymentMethod: Fixtures.visa), order: draft, idempotencyKey: "key-1")
        }
        #expect(backend.calls.count == 1)
    }

    @Test func aProviderStubWithoutAVaultResultFailsTheTest() async throws {
        let provider = PaymentProviderStub()
        let card = try #require(try? CardEntry(number: "4242 4242 4242 4242", expiry: "12/34", securityCode: "123", name: "J", postalCode: "95014")
            .validated(today: CardExpiry(month: 1, year: 2026)).get())
        await withKnownIssue {
            _ = try? await provider.vault(card, forCustomer: "guest")
        }
    }

    @Test func aSheetControllerSpyWithoutADelegateFailsTheTest() async {
        let shop = StoreProfile.standard()
        let request = PaymentRequest(
            merchantIdentifier: shop.merchantIdentifier, merchantName: shop.name, countryCode: shop.countryCode, currency: shop.currency,
            supportedNetworks: shop.supportedNetworks, merchantCapabilities: [.threeDSecure], summaryItems: [],
            shippingMethods: shop.shippingMethods, requiredShippingContactFields: [.name]
        )
        let controller = PaymentAuthorizationControllerSpy(request: request)
        await withKnownIssue {
            _ = await controller.authorize()
        }
    }

    @Test func theTestStoreFailsWhenTheChangeIsNotTheOneExpected() async {
        let store = await TestStore(dependencies: TestStack().dependencies)
        withKnownIssue {
            store.send(.moveDown) { $0.productList.selectedIndex = 2 }
        }
    }

    @Test func theTestStoreFailsWhenAnAnswerIsLeftUnreceived() async {
        var stack = TestStack()
        let spy = PaymentAuthorizationSpy()
        stack.paymentAuthorization = spy.authorization
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.addToCart, .showCart)
        // Pay checks the wallet in an effect whose answer this test never takes.
        store.send(.pay) { $0.isCheckingWallet = true }
        await withKnownIssue {
            await store.finish()
        }
    }
}
