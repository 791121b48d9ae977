import ShopLanguages
import ShopPorts

/// The words a checkout shows for what went wrong, one place for every payment error.
enum CheckoutMessages {
    static func message(for error: PaymentAuthorizationError) -> Localized {
        switch error {
        case .networksNotSupported: Localized("No card in your wallet works here. Set up a card to pay.")
        case .unableToInitialize: Localized("The payment sheet could not be opened for this order.")
        }
    }

    static func message(for error: PaymentProviderError) -> Localized {
        switch error {
        case .cardRejected(let reason): reason.words
        case .cardRefused(let why): .lookup(why)
        case .typedCardsRefused: Localized("The payment service takes cards on its own page here; nothing is wrong with your card.")
        case .unavailable(let why): Localized("The payment provider is unavailable (\(why)). You were not charged.")
        }
    }

    static func message(for error: MerchantBackendError) -> Localized {
        switch error {
        case .declined(let reason): reason.words
        case .soldOut(let name, let available):
            available == 0
                ? Localized("Sorry, \(name) just sold out. You were not charged; the rest of your cart is kept.")
                : Localized("Only \(available) of \(name) left. You were not charged; lower the quantity and pay again.")
        case .idempotencyMismatch: Localized("This payment conflicts with an earlier attempt. You were not charged twice; please try again.")
        case .timedOut:
            Localized(
                "No answer yet on whether the payment went through; your orders show it as being checked. Paying again is safe: you are never charged twice."
            )
        case .providerUnreachable: Localized("The payment service is not answering; nothing was charged. Your cart is kept; try again in a moment.")
        case .authenticationRequired: Localized("Your bank wants to check this payment, and the check was not finished; you were not charged.")
        case .discountRefused(let refusal): Localized("\(refusal.words) You were not charged; take the code off or enter another.")
        case .providerRefused(let why): Localized("The payment service refused this order, not your card: \(why) You were not charged.")
        case .unavailable(let why): Localized("The shop could not take the order (\(why)).")
        }
    }
}
