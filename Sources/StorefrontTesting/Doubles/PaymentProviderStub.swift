import Foundation
import IssueReporting
import LiveObjects
import ShopModels
import ShopPorts
import StorefrontCore
import Synchronization

/// A payment provider that answers with a fixed result and counts calls.
///
/// Vaulting is not set up unless the test gives a `vaultResult`; a vault call then fails the test.
public final class PaymentProviderStub: PaymentProvider {
    private let result: Result<PaymentToken, PaymentProviderError>
    private let vaultResult: Result<PaymentMethod, PaymentProviderError>?
    private let refusal: String?
    /// The provider's card page, when the test gives one: cards are then taken there, not typed.
    public let hostedCardSetup: (any HostedCardSetup)?
    private let calls = Mutex<[Payment]>([])
    private let vaulted = Mutex<[CardDetails]>([])

    public init(
        result: Result<PaymentToken, PaymentProviderError> = .success(PaymentToken(id: "tok_stub", paymentMethod: Fixtures.visa)),
        vaultResult: Result<PaymentMethod, PaymentProviderError>? = nil,
        refusingCharges refusal: String? = nil,
        cardPage: (any HostedCardSetup)? = nil
    ) {
        self.result = result
        self.vaultResult = vaultResult
        self.refusal = refusal
        self.hostedCardSetup = cardPage
    }

    public var cardCollection: CardCollection { hostedCardSetup == nil ? .typedInTheShop : .onTheProvidersPage }

    public var payments: [Payment] { calls.withLock { $0 } }
    /// The cards sent to the vault, in order.
    public var vaultedCards: [CardDetails] { vaulted.withLock { $0 } }

    public let mode = PaymentMode.sandbox

    public func canCharge(_ card: PaymentMethod) -> Bool { true }

    /// The refusal the test gave (`refusingCharges:`), for every amount; nil by default.
    public func chargeRefusal(_ total: Money) -> String? { refusal }

    public func vault(_ card: CardDetails, forCustomer customerID: String) async throws(PaymentProviderError) -> PaymentMethod {
        vaulted.withLock { $0.append(card) }
        guard let vaultResult else {
            reportIssue("PaymentProviderStub.vault was called, but the test gave no vaultResult.")
            throw .unavailable("vault not set up")
        }
        return try vaultResult.get()
    }

    public func createToken(for payment: Payment) async throws(PaymentProviderError) -> PaymentToken {
        calls.withLock { $0.append(payment) }
        return try result.get()
    }
}

extension PaymentProviderStub: LiveObject {}
