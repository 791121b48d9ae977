import Foundation
import ShopModels
import ShopPorts

/// Each shop customer's Stripe Customer, made the first time it is needed and kept beside the customer.
struct StripeCustomers: Sendable {
    var client: StripeClient
    var references: any ProviderReferenceRepository
    var account: String

    /// The customer's Stripe id, creating the Stripe Customer first when there is none.
    ///
    /// The creation carries an idempotency key made from this shop's install id and the customer's id, and the
    /// filing is first-wins, so two sessions of one customer end up with one Stripe Customer, and two shops on
    /// one Stripe account never share one.
    func reference(for customerID: String) async throws(StripeOperationFailure) -> String {
        if let known = try await StripeOperationFailure.storing({ try await references.customerReference(for: customerID, account: account) }) {
            return known
        }
        let install = try await StripeOperationFailure.storing { try await references.installID() }
        let created: StripeCustomer = try await client.postStep(
            "/v1/customers", [("metadata[storefront_customer]", customerID), ("metadata[storefront_install]", install)],
            idempotencyKey: "storefront-\(install)-customer-\(customerID)"
        )
        return try await StripeOperationFailure.storing { try await references.fileCustomerReference(created.id, for: customerID, account: account) }
    }
}

/// A failed step of a Stripe operation: Stripe's answer, or the shop's own records.
enum StripeOperationFailure: Error {
    case stripe(StripeFailure)
    case records(String)

    static func storing<T>(_ body: () async throws -> T) async throws(StripeOperationFailure) -> T {
        do { return try await body() } catch { throw .records("\(error)") }
    }
}

extension StripeClient {
    /// `post`, its failure named as one step of a larger operation.
    func postStep<T: Decodable>(_ path: String, _ form: [(String, String)], idempotencyKey: String) async throws(StripeOperationFailure) -> T {
        do { return try await post(path, form, idempotencyKey: idempotencyKey) } catch { throw .stripe(error) }
    }

    /// `get`, its failure named as one step of a larger operation.
    func getStep<T: Decodable>(_ path: String) async throws(StripeOperationFailure) -> T {
        do { return try await get(path) } catch { throw .stripe(error) }
    }
}

/// The payment provider on Stripe: cards are added on Stripe's own page (`StripeCardSetup`), or, for an account
/// allowed raw card data and an operator who turned typed cards on, typed in the shop and sent to Stripe once.
/// Paying uses the card's PaymentMethod id as the token.
///
/// Order of calls for a typed card: the customer's Stripe id (created once) → `POST /v1/payment_methods`
/// (the only call that carries the number) → `POST /v1/payment_methods/{id}/attach` → `POST /v1/setup_intents`
/// (usage `off_session`) → `POST /v1/setup_intents/{id}/confirm`, so a card that may become a subscription's is set up
/// for the renewals' off-session charges. A card whose bank asks for a check to set it up stays attached for payments
/// with the shopper there; its first subscription order (`setup_future_usage`) sets it up through the check.
public struct StripePaymentProvider: PaymentProvider {
    private let customers: StripeCustomers
    private let client: StripeClient
    private let ids: IDGenerator
    private let cardPage: StripeCardSetup?
    private let rawCardData: Bool
    private let onTypedCardsRefused: @Sendable (String) -> Void
    public let mode: PaymentMode

    /// `cardPage` is Stripe's card page's currency and where Stripe sends the shopper back to. With `rawCardData`
    /// (or no card page), cards are typed in the shop, which only an account with raw card data access allows;
    /// Stripe refusing one is told to `onTypedCardsRefused`, for the operator's log.
    public init(
        client: StripeClient, key: StripeSecretKey, references: any ProviderReferenceRepository, cardPage: (currency: Currency, returnURL: URL)?,
        rawCardData: Bool = false, onTypedCardsRefused: @escaping @Sendable (String) -> Void = { _ in }, ids: IDGenerator = .random
    ) {
        self.rawCardData = rawCardData
        self.onTypedCardsRefused = onTypedCardsRefused
        self.client = client
        let customers = StripeCustomers(client: client, references: references, account: key.account)
        self.customers = customers
        self.ids = ids
        self.mode = key.mode
        self.cardPage = cardPage.map {
            StripeCardSetup(client: client, customers: customers, currency: $0.currency, returnURL: $0.returnURL, ids: ids)
        }
    }

    public var cardCollection: CardCollection { rawCardData || cardPage == nil ? .typedInTheShop : .onTheProvidersPage }
    public var hostedCardSetup: (any HostedCardSetup)? { cardPage }

    public func vault(_ card: CardDetails, forCustomer customerID: String) async throws(PaymentProviderError) -> PaymentMethod {
        do {
            let customer = try await customers.reference(for: customerID)
            var form: [(String, String)] = [
                ("type", "card"), ("card[number]", card.number), ("card[exp_month]", String(card.expiry.month)),
                ("card[exp_year]", String(card.expiry.year)), ("card[cvc]", card.securityCode),
            ]
            if !card.name.isEmpty { form.append(("billing_details[name]", card.name)) }
            if !card.postalCode.isEmpty { form.append(("billing_details[address][postal_code]", card.postalCode)) }
            let created: StripePaymentMethod = try await client.postStep("/v1/payment_methods", form, idempotencyKey: "storefront-pm-\(ids.next())")
            let attached: StripePaymentMethod = try await client.postStep(
                "/v1/payment_methods/\(created.id)/attach", [("customer", customer)], idempotencyKey: "storefront-attach-\(created.id)"
            )
            try await setUpForRenewals(created.id, customer: customer)
            var stripe = attached
            stripe.card = attached.card ?? created.card
            return Self.paymentMethod(stripe, fallback: card)
        } catch {
            let refusal = Self.providerError(error)
            if case .typedCardsRefused(let why) = refusal {
                onTypedCardsRefused(
                    """
                    Stripe refused a card number typed in the shop: this Stripe account has no raw card data access ("\(why)"). \
                    Turn stripe-raw-card-data off so cards are taken on Stripe's own page (stripe-return-url must be set), \
                    or ask Stripe for raw card data access, which puts this host in PCI DSS scope (SAQ D). Shoppers are offered the card page meanwhile.
                    """)
            }
            throw refusal
        }
    }

    /// Sets the attached card `methodID` up for off-session charges; a card its bank declines is detached again, so
    /// the wallet never keeps it. One that needs the bank's check (`requires_action`) is left as it is; one whose
    /// set-up had no answer is kept (it may be set up) and the failure said.
    private func setUpForRenewals(_ methodID: String, customer: String) async throws(StripeOperationFailure) {
        let setup: StripeSetupIntent = try await client.postStep(
            "/v1/setup_intents", [("customer", customer), ("usage", "off_session"), ("payment_method_types[]", "card")],
            idempotencyKey: "storefront-seti-\(methodID)")
        do {
            let _: StripeSetupIntent = try await client.postStep(
                "/v1/setup_intents/\(setup.id)/confirm", [("payment_method", methodID)], idempotencyKey: "storefront-seti-confirm-\(methodID)")
        } catch .stripe(.refused(402, let refusal)) {
            await forget(cardID: methodID)
            throw .stripe(.refused(status: 402, refusal))
        }
    }

    /// The shop's card for a Stripe PaymentMethod: brand, last four and expiry as Stripe read them (what was typed,
    /// where Stripe's answer lacks them).
    static func paymentMethod(_ stripe: StripePaymentMethod, fallback typed: CardDetails?) -> PaymentMethod {
        let card = stripe.card
        let expiry = card.map { CardExpiry(month: $0.expMonth, year: $0.expYear) } ?? typed?.expiry ?? CardExpiry(month: 1, year: 1970)
        return PaymentMethod(
            id: stripe.id, network: PaymentNetwork(stripeBrand: card?.brand) ?? typed?.network ?? .visa,
            lastFour: card?.last4 ?? typed?.lastFour ?? "????", expiry: expiry, displayName: "Expires \(expiry)"
        )
    }

    public func createToken(for payment: Payment) async throws(PaymentProviderError) -> PaymentToken {
        guard canCharge(payment.method) else { throw .cardRejected(.incorrectNumber) }
        return PaymentToken(id: payment.method.id, paymentMethod: payment.method)
    }

    public func forget(cardID: String) async {
        guard cardID.hasPrefix("pm_") else { return }
        let _: StripePaymentMethod? = try? await client.post(
            "/v1/payment_methods/\(cardID)/detach", [], idempotencyKey: "storefront-detach-\(cardID)")
    }

    /// Only Stripe PaymentMethods: sandbox cards from an earlier run stay in the wallet but are not offered.
    public func canCharge(_ card: PaymentMethod) -> Bool { card.id.hasPrefix("pm_") }

    public func chargeRefusal(_ total: Money) -> String? {
        StripeAmounts.refusal(forCharge: total).map(\.description)
    }

    /// Stripe's refusal of the card in the shop's words where there are some, in Stripe's where not.
    static func providerError(_ failure: StripeOperationFailure) -> PaymentProviderError {
        switch failure {
        case .records(let why): return .unavailable("the shop's records failed: \(why)")
        case .stripe(.notSent), .stripe(.noAnswer): return .unavailable("the payment service is not answering")
        case .stripe(.refused(let status, let error)):
            if let reason = error.declineReason { return .cardRejected(reason) }
            if error.refusesRawCardData { return .typedCardsRefused(error.message ?? "Stripe refused card numbers sent by the shop") }
            if status == 401 || status == 403 { return .unavailable("Stripe refused the shop's key") }
            return .cardRefused(error.message ?? "Stripe refused the card (\(status)).")
        }
    }
}
