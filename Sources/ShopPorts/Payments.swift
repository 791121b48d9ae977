import Foundation
import ShopLanguages
import ShopModels

/// A single-use token for an authorized payment, made by the payment provider.
public struct PaymentToken: Hashable, Sendable {
    public var id: String
    public var paymentMethod: PaymentMethod
    public init(id: String, paymentMethod: PaymentMethod) {
        self.id = id
        self.paymentMethod = paymentMethod
    }
}

/// Failures of the payment provider.
public enum PaymentProviderError: Error, Hashable, Sendable {
    case cardRejected(DeclineReason)
    /// The provider refused the card for a reason of its own, in its words.
    case cardRefused(String)
    /// The provider will not take card numbers typed into the shop (a Stripe account without raw card data access):
    /// nothing is wrong with the card; its page takes it instead.
    case typedCardsRefused(String)
    case unavailable(String)
}

/// Whose money moves: none (the sandbox), a provider's test mode, or real money.
public enum PaymentMode: String, Hashable, Sendable {
    case sandbox, test, live

    /// What the checkout header says, so no one mistakes a live shop for a demo or the reverse.
    public var label: String { words.description }

    /// `label` in the shopper's language.
    public var words: Localized {
        switch self {
        case .sandbox: Localized("sandbox payments")
        case .test: Localized("Stripe test mode")
        case .live: Localized("live payments")
        }
    }
}

/// The payment provider: keeps cards in its vault and turns authorized payments into chargeable tokens.
public protocol PaymentProvider: Sendable {
    /// Whether payments here are pretend, test-mode or real.
    var mode: PaymentMode { get }
    /// How a new card is taken: typed in the shop's form (`vault`), or on the provider's page (`hostedCardSetup`).
    var cardCollection: CardCollection { get }
    /// The provider's card page, when it has one.
    var hostedCardSetup: (any HostedCardSetup)? { get }
    /// Sends a card to the provider's vault once, for `customerID` (the shop's id for the buyer);
    /// the answer names the card by a token, so the shop never keeps the number or the security code.
    func vault(_ card: CardDetails, forCustomer customerID: String) async throws(PaymentProviderError) -> PaymentMethod
    func createToken(for payment: Payment) async throws(PaymentProviderError) -> PaymentToken
    /// Whether a card kept in a wallet is one this provider can charge (cards vaulted elsewhere are hidden).
    func canCharge(_ card: PaymentMethod) -> Bool
    /// Why the provider would refuse to charge `total` at all (under its smallest charge, say), in words for the
    /// shopper; nil when it may be charged. Checked on the sheet before anything is sent.
    func chargeRefusal(_ total: Money) -> String?
    /// Tells the provider a card was removed from its shopper's wallet, so it keeps it no longer (Stripe detaches the
    /// PaymentMethod from its Customer). Best effort: a failure is the provider's to tidy, never the shopper's.
    func forget(cardID: String) async
}

extension PaymentProvider {
    /// Providers that keep no cards of their own (the sandbox) have nothing to forget.
    public func forget(cardID: String) async {}
}

/// The backend's receipt for a paid order.
public struct OrderConfirmation: Hashable, Sendable {
    public var orderNumber: String
    public var total: Money
    public init(orderNumber: String, total: Money) {
        self.orderNumber = orderNumber
        self.total = total
    }
}

/// Failures of the merchant backend.
public enum MerchantBackendError: Error, Hashable, Sendable {
    case declined(DeclineReason)
    /// Not enough of a product is left; nothing was charged or reserved.
    case soldOut(productName: String, available: Int)
    /// The same idempotency key came with different parameters.
    case idempotencyMismatch
    /// No answer in time; retrying with the same key is safe.
    case timedOut
    /// The payment provider could not be reached before anything was charged.
    case providerUnreachable
    /// The card's bank wants the shopper to pass a check (3-D Secure) at `url` before it charges; the charge waits,
    /// and the same key asks again how it stands.
    case authenticationRequired(url: String)
    /// The order's discount code has no use left for it, or no longer holds; nothing was charged or reserved.
    case discountRefused(DiscountRefusal)
    /// The provider refused the charge for a reason that is not the card's (an amount it cannot take, a parameter, the
    /// account's settings): definite, nothing was charged, and asking again changes nothing.
    case providerRefused(String)
    /// The shop or the provider could not act just now (its records failed); asking again later may work.
    case unavailable(String)
}

/// Charges still open (a bank's check under way) that a front follows for its shopper.
public protocol OpenCharges: Sendable {
    /// The order whose charge runs under `idempotencyKey` while it is still open; nil once settled or never begun.
    func openOrderNumber(idempotencyKey: String) async throws -> String?
    /// Asks the provider how an open order's charge stands and settles the order when it has decided; its status
    /// after (nil when it was settled already).
    func settleFromProvider(orderNumber: String) async throws -> OrderStatus?
}

/// Charges a token for an order. The same idempotency key never charges twice.
public protocol MerchantBackend: Sendable {
    func processPayment(token: PaymentToken, order: OrderDraft, idempotencyKey: String) async throws(MerchantBackendError) -> OrderConfirmation
    /// Settles `customer`'s orders whose charge went unanswered, from the provider's records, before they pay again:
    /// a charge that went through is never made a second time.
    func settleOpenOrders(customer: String) async throws(MerchantBackendError) -> OpenOrderCheck
    /// Gives up the charge started under `idempotencyKey` (the shopper left the bank's check): it is canceled at the
    /// provider unless it went through first. Returns how the order ended.
    func abandonCharge(idempotencyKey: String) async throws(MerchantBackendError) -> OrderStatus
}

/// What settling a customer's open orders found.
public struct OpenOrderCheck: Hashable, Sendable {
    /// Orders the provider says were paid: their lines were bought.
    public var paid: [Order]
    /// Orders the provider cannot answer for yet (unreachable, or still deciding), or still being charged by
    /// another session: nothing may be paid again until they are known.
    public var stillOpen: [String]

    public init(paid: [Order] = [], stillOpen: [String] = []) {
        self.paid = paid
        self.stillOpen = stillOpen
    }

    /// Nothing was open.
    public static let nothingOpen = OpenOrderCheck()
}

/// How a recorded charge ended.
public enum ChargeOutcome: Hashable, Sendable {
    case succeeded
    case declined(DeclineReason)
}

/// One charge in a provider's records, filed under its idempotency key.
public struct LedgerCharge: Hashable, Sendable {
    public var key: String
    public var tokenID: String
    public var amount: Money
    public var outcome: ChargeOutcome

    public init(key: String, tokenID: String, amount: Money, outcome: ChargeOutcome) {
        self.key = key
        self.tokenID = tokenID
        self.amount = amount
        self.outcome = outcome
    }
}

/// One charge the backend asks a provider for: what to charge, for whom, for which order.
public struct ChargeRequest: Hashable, Sendable {
    public var tokenID: String
    public var amount: Money
    public var idempotencyKey: String
    public var orderNumber: String
    /// The shop's id for the buyer.
    public var customerID: String
    /// Charged with nobody there (a subscription's renewal): the card's bank cannot ask the buyer to authenticate, and
    /// a charge that needs it fails (`authentication_required`) instead of waiting for a check.
    public var offSession: Bool
    /// The card is kept for the renewals of the subscription this order starts: the provider sets it up for charges
    /// made off-session (Stripe's `setup_future_usage=off_session`).
    public var savesCardForRenewals: Bool

    public init(
        tokenID: String, amount: Money, idempotencyKey: String, orderNumber: String, customerID: String, offSession: Bool = false,
        savesCardForRenewals: Bool = false
    ) {
        self.offSession = offSession
        self.savesCardForRenewals = savesCardForRenewals
        self.tokenID = tokenID
        self.amount = amount
        self.idempotencyKey = idempotencyKey
        self.orderNumber = orderNumber
        self.customerID = customerID
    }
}

/// Charges payment tokens at a provider. A key charges at most once: the same key gives the first answer.
public protocol ChargeProcessor: Sendable {
    /// Charges the request under its idempotency key, or answers with what the key already holds.
    func charge(_ request: ChargeRequest) async throws(MerchantBackendError) -> LedgerCharge
    /// What the provider has filed under `key`: nil when nothing.
    func recordedCharge(forKey key: String) async throws -> LedgerCharge?
    /// Files a void under `key` unless something is filed there already; returns what is filed.
    func void(key: String, amount: Money) async throws -> LedgerCharge
}

/// A payment provider's own records of charges: what makes a retry with the same key safe.
public protocol ChargeLedger: Sendable {
    /// The charge filed under `key`, or nil when there is none.
    func charge(forKey key: String) async throws -> LedgerCharge?
    /// Files `charge` unless its key is taken; returns what is filed under the key either way.
    func record(_ charge: LedgerCharge) async throws -> LedgerCharge
}

/// A payment provider's ids for the shop's customers and payments, kept beside them in the shop's database.
///
/// Filing is first-wins, like the ledger: two processes that race to file get the same answer.
public protocol ProviderReferenceRepository: Sendable {
    /// The provider's id for `customer` in `account` (such as "stripe:test"), or nil.
    func customerReference(for customer: String, account: String) async throws -> String?
    /// Files `reference` for `customer` in `account` unless one is filed; returns the one filed.
    func fileCustomerReference(_ reference: String, for customer: String, account: String) async throws -> String
    /// The provider's id for the payment of the order started under `orderKey`, or nil.
    func paymentReference(forOrderKey orderKey: String) async throws -> String?
    /// Files `reference` on the order started under `orderKey` unless one is filed; returns the one filed.
    func filePaymentReference(_ reference: String, forOrderKey orderKey: String) async throws -> String
    /// This shop's own id, made once with its database: in the keys the shop sends a provider, so two shops on
    /// one provider account never share a customer.
    func installID() async throws -> String
}

extension ChargeOutcome {
    /// How a ledger stores the outcome: `succeeded` or `declined:<reason>`.
    public var ledgerText: String {
        switch self {
        case .succeeded: "succeeded"
        case .declined(let reason): "declined:\(reason.rawValue)"
        }
    }

    /// Reads `ledgerText` back; an unknown reason reads as a generic decline.
    public init(ledgerText: String) {
        self =
            ledgerText == "succeeded"
            ? .succeeded
            : .declined(DeclineReason(rawValue: String(ledgerText.dropFirst("declined:".count))) ?? .generic)
    }
}

/// Filing a payment reference for an order key the shop never started.
public struct UnknownOrderKey: Error, CustomStringConvertible {
    public var orderKey: String
    public init(orderKey: String) { self.orderKey = orderKey }
    public var description: String { "no order was started under idempotency key \(orderKey)" }
}
