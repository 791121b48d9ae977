import Foundation
import ShopModels
import ShopPorts

/// Cards added on Stripe's own page: a Checkout Session in setup mode for the shop's Stripe customer.
///
/// Order of calls: the customer's Stripe id (created once) → `POST /v1/checkout/sessions` (mode=setup) → the
/// shopper opens its URL → `GET /v1/checkout/sessions/{id}` until `complete` or `expired` → the SetupIntent's
/// PaymentMethod (`GET /v1/setup_intents/{id}`, `GET /v1/payment_methods/{id}`) is the card; or
/// `POST /v1/checkout/sessions/{id}/expire` when the shopper leaves.
public struct StripeCardSetup: HostedCardSetup {
    private let client: StripeClient
    private let customers: StripeCustomers
    private let currency: Currency
    private let returnURL: URL
    private let ids: IDGenerator

    /// `returnURL` is where Stripe sends the shopper once the card is added or the page left.
    init(client: StripeClient, customers: StripeCustomers, currency: Currency, returnURL: URL, ids: IDGenerator) {
        self.client = client
        self.customers = customers
        self.currency = currency
        self.returnURL = returnURL
        self.ids = ids
    }

    /// How long Stripe's card page stays open (Stripe takes 30 minutes to 24 hours).
    static let pageLifetimeSeconds = 3_600

    public func startCardSetup(forCustomer customerID: String) async throws(PaymentProviderError) -> CardSetupLink {
        do throws(StripeOperationFailure) {
            let customer = try await customers.reference(for: customerID)
            let session: StripeCheckoutSession = try await client.postStep(
                "/v1/checkout/sessions",
                [
                    ("mode", "setup"), ("currency", currency.code.lowercased()), ("customer", customer),
                    ("payment_method_types[]", "card"),
                    ("success_url", Self.returning(returnURL, "card-added")), ("cancel_url", Self.returning(returnURL, "card-not-added")),
                    ("metadata[storefront_customer]", customerID),
                    // An hour, not Stripe's day: a page left open is closed soon, and a link seen on a screen goes stale.
                    ("expires_at", String(Int(Date().timeIntervalSince1970) + Self.pageLifetimeSeconds)),
                ], idempotencyKey: "storefront-setup-\(ids.next())")
            guard let url = session.url else { throw StripeOperationFailure.stripe(.noAnswer("Stripe's Checkout Session \(session.id) has no URL")) }
            return CardSetupLink(id: session.id, url: url)
        } catch {
            throw StripePaymentProvider.providerError(error)
        }
    }

    public func cardSetupState(_ link: CardSetupLink) async throws(PaymentProviderError) -> CardSetupState {
        do throws(StripeOperationFailure) {
            let session: StripeCheckoutSession = try await client.getStep("/v1/checkout/sessions/\(link.id)")
            switch session.status {
            case "complete":
                guard let setupID = session.setupIntent else {
                    throw StripeOperationFailure.stripe(.noAnswer("the completed session \(link.id) names no SetupIntent"))
                }
                let setup: StripeSetupIntent = try await client.getStep("/v1/setup_intents/\(setupID)")
                guard let methodID = setup.paymentMethod else {
                    throw StripeOperationFailure.stripe(.noAnswer("SetupIntent \(setupID) names no card"))
                }
                let method: StripePaymentMethod = try await client.getStep("/v1/payment_methods/\(methodID)")
                return .completed(StripePaymentProvider.paymentMethod(method, fallback: nil))
            case "expired": return .expired
            default: return .open
            }
        } catch {
            throw StripePaymentProvider.providerError(error)
        }
    }

    public func cancelCardSetup(_ link: CardSetupLink) async {
        let _: StripeCheckoutSession? = try? await client.post(
            "/v1/checkout/sessions/\(link.id)/expire", [], idempotencyKey: "storefront-expire-\(link.id)")
    }

    /// `base` with `storefront=<outcome>` added to its query, so the page there can say what happened.
    static func returning(_ base: URL, _ outcome: String) -> String {
        guard var parts = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return base.absoluteString }
        parts.queryItems = (parts.queryItems ?? []) + [URLQueryItem(name: "storefront", value: outcome)]
        return parts.url?.absoluteString ?? base.absoluteString
    }
}
