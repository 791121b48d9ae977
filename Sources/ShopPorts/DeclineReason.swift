import ShopLanguages

/// Why a card was declined, with the words the shopper sees.
public enum DeclineReason: String, Hashable, Sendable, CaseIterable {
    case generic, insufficientFunds, expiredCard, incorrectCVC, processingError, incorrectNumber
    /// Not the card's doing: the shop settled the order as never charged while its charge waited
    /// (the buyer's process was stopped past the settle age), and voided the charge's key first.
    case voided
    /// The card wants the shopper to pass a check (3-D Secure) in a browser, and the shop has no page for the bank
    /// to send them back to (no return URL), so the check cannot be offered.
    case authenticationRequired
    /// The shopper did not pass the bank's check (3-D Secure), or left it.
    case authenticationFailed
    /// The shopper canceled the bank's check (3-D Secure): nothing was charged.
    case authenticationCanceled
    // Stripe's decline codes beyond the common ones, kept as Stripe names them (`decline_code`).
    case doNotHonor, doNotTryAgain, lostCard, stolenCard, pickupCard, fraudulent, revocationOfAuthorization, stopPaymentOrder
    case cardNotSupported, currencyNotSupported, cardVelocityExceeded, tryAgainLater, restrictedCard, securityViolation
    case transactionNotAllowed, withdrawalCountLimitExceeded, invalidAccount, newAccountInformationAvailable

    /// The card may never be charged again without its holder: off-session tries stop (Stripe's advice; card networks
    /// fine merchants who retry these), and the subscriber is asked for another card or to pay on the sheet.
    public var isHard: Bool {
        switch self {
        case .doNotTryAgain, .lostCard, .stolenCard, .pickupCard, .fraudulent, .revocationOfAuthorization, .stopPaymentOrder, .expiredCard,
            .incorrectNumber, .invalidAccount, .restrictedCard, .securityViolation, .newAccountInformationAvailable, .authenticationRequired:
            true
        default: false
        }
    }

    /// The reason for Stripe's `decline_code` (or error `code`); nil for one this list does not name.
    public init?(stripeCode: String) {
        switch stripeCode {
        case "insufficient_funds": self = .insufficientFunds
        case "expired_card": self = .expiredCard
        case "incorrect_cvc", "invalid_cvc": self = .incorrectCVC
        case "processing_error": self = .processingError
        case "incorrect_number", "invalid_number": self = .incorrectNumber
        case "authentication_required": self = .authenticationRequired
        case "payment_intent_authentication_failure": self = .authenticationFailed
        case "do_not_honor": self = .doNotHonor
        case "do_not_try_again": self = .doNotTryAgain
        case "lost_card": self = .lostCard
        case "stolen_card": self = .stolenCard
        case "pickup_card": self = .pickupCard
        case "fraudulent", "merchant_blacklist": self = .fraudulent
        case "revocation_of_authorization", "revocation_of_all_authorizations": self = .revocationOfAuthorization
        case "stop_payment_order": self = .stopPaymentOrder
        case "card_not_supported": self = .cardNotSupported
        case "currency_not_supported": self = .currencyNotSupported
        case "card_velocity_exceeded": self = .cardVelocityExceeded
        case "try_again_later", "issuer_not_available", "reenter_transaction": self = .tryAgainLater
        case "restricted_card": self = .restrictedCard
        case "security_violation": self = .securityViolation
        case "transaction_not_allowed", "service_not_allowed", "not_permitted": self = .transactionNotAllowed
        case "withdrawal_count_limit_exceeded": self = .withdrawalCountLimitExceeded
        case "invalid_account": self = .invalidAccount
        case "new_account_information_available": self = .newAccountInformationAvailable
        case "generic_decline", "card_declined": self = .generic
        default: return nil
        }
    }

    public var message: String { words.description }

    /// `message` in the shopper's language.
    public var words: Localized {
        switch self {
        case .generic: Localized("Your card was declined.")
        case .insufficientFunds: Localized("Your card has insufficient funds.")
        case .expiredCard: Localized("Your card has expired.")
        case .incorrectCVC: Localized("Your card's security code is incorrect.")
        case .processingError: Localized("An error occurred while processing your card. Try again in a little bit.")
        case .incorrectNumber: Localized("Your card number is incorrect.")
        case .voided:
            Localized("This order waited too long and was canceled before any charge; you were not charged. Pay again to place a new order.")
        case .authenticationRequired: Localized("This card needs a check in a browser, which a terminal cannot show; choose another card.")
        case .authenticationFailed:
            Localized("Your bank's check of this payment did not succeed; you were not charged. Try again, or choose another card.")
        case .authenticationCanceled: Localized("You canceled your bank's check of this payment; you were not charged.")
        case .doNotHonor: Localized("Your card was declined by your bank; call it, or choose another card.")
        case .doNotTryAgain: Localized("Your bank declined this card and asked for it not to be tried again; choose another card.")
        case .lostCard, .stolenCard, .pickupCard: Localized("Your bank declined this card (reported lost or stolen); choose another card.")
        case .fraudulent: Localized("Your card was declined; choose another card.")
        case .revocationOfAuthorization, .stopPaymentOrder: Localized("You asked your bank to stop these payments; choose another card to go on.")
        case .cardNotSupported: Localized("This card does not support this kind of purchase; choose another card.")
        case .currencyNotSupported: Localized("This card does not support this currency; choose another card.")
        case .cardVelocityExceeded: Localized("Your card went over its limit; choose another card, or call your bank.")
        case .tryAgainLater: Localized("Your bank could not be reached; try again in a little bit.")
        case .restrictedCard, .securityViolation: Localized("Your bank restricts this card; choose another card.")
        case .transactionNotAllowed: Localized("Your bank does not allow this purchase on this card; choose another card.")
        case .withdrawalCountLimitExceeded: Localized("Your card went over its number of payments; choose another card.")
        case .invalidAccount: Localized("The card's account is not valid; choose another card.")
        case .newAccountInformationAvailable: Localized("Your bank has new details for this card; add it again, or choose another card.")
        }
    }
}
