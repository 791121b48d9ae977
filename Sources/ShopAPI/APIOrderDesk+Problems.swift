import Foundation
import ShopApplication
import ShopIdentity
import ShopLanguages
import ShopModels
import ShopPorts

/// The market an order is sold in, and the problems an order answers with, in the client's terms and, where a shopper
/// reads them, in the shopper's words.
extension APIOrderDesk {
    /// The market an order to `address` is sold in, and its rate, where it is not the one `home` prices in; nil for the
    /// home market, or a catalog without markets.
    static func market(of address: PostalAddress, home: any CatalogRepository) -> (MarketCatalog?, OrderExchange?) {
        guard let home = home as? MarketCatalog, let market = home.pricing.market(for: address), market != home.market else { return (nil, nil) }
        return (MarketCatalog(home.base, pricing: home.pricing, market: market), home.pricing.exchange(in: market))
    }

    static func missing(_ field: String, _ message: String) -> APIProblem { missing(field, Localized.lookup(message)) }

    /// A 422 naming `field` and what is wrong with it, in the shopper's words where the catalog holds them (a refused
    /// code, a place the shop does not ship to).
    static func missing(_ field: String, _ words: Localized) -> APIProblem {
        let message = words.description
        // A sentence keeps its own stop; a phrase ("is empty") gets one.
        let stop = message.last.map { ".!?".contains($0) } == true ? "" : "."
        return APIProblem(
            .validation, "\(field): \(message)\(stop)", errors: [.init(field: field, message: message)],
            words: .untranslated("\(field): \(words)\(stop)"))
    }

    static func problem(_ error: PaymentProviderError) -> APIProblem {
        switch error {
        case .cardRejected(let reason): APIProblem(.paymentFailed, reason.message, words: reason.words)
        case .cardRefused(let message), .typedCardsRefused(let message): APIProblem(.paymentFailed, message)
        case .unavailable(let message):
            APIProblem(.unavailable, "The payment provider cannot be reached: \(message) Nothing was charged; try again.", retryAfter: 30)
        }
    }

    static func problem(_ error: MerchantBackendError) -> APIProblem {
        switch error {
        case .declined(let reason): APIProblem(.paymentFailed, reason.message, words: reason.words)
        case .soldOut(let name, let available):
            APIProblem(
                .validation, available == 0 ? "\(name) sold out; nothing was charged." : "Only \(available) of \(name) left; nothing was charged.",
                errors: [.init(field: "cart", message: "\(name): \(available) left")])
        case .idempotencyMismatch: APIProblem(.idempotencyKeyReused, "This Idempotency-Key was used for an order of another total; use a new key.")
        case .timedOut, .providerUnreachable:
            APIProblem(
                .unavailable,
                "The payment provider did not answer. Send the same request with the same Idempotency-Key again: it is never charged twice.",
                retryAfter: 5)
        case .authenticationRequired:
            APIProblem(.paymentFailed, DeclineReason.authenticationRequired.message, words: DeclineReason.authenticationRequired.words)
        case .discountRefused(let refusal): missing("discountCode", refusal.words)
        case .providerRefused(let why):
            APIProblem(.paymentFailed, "The payment provider refused this order, not the card: \(why) Nothing was charged.")
        case .unavailable(let message): APIProblem(.unavailable, message, retryAfter: 30)
        }
    }
}
