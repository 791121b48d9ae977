import ShopModels
import ShopPorts

/// The parts of Stripe's objects the shop reads.
struct StripeCustomer: Decodable, Sendable {
    var id: String
}

struct StripePaymentMethod: Decodable, Sendable {
    struct Card: Decodable, Sendable {
        var brand: String?
        var last4: String
        var expMonth: Int
        var expYear: Int

        enum CodingKeys: String, CodingKey {
            case brand, last4
            case expMonth = "exp_month"
            case expYear = "exp_year"
        }
    }

    var id: String
    var card: Card?
}

struct StripePaymentIntent: Decodable, Sendable {
    /// What Stripe asks the shop to do next; only a redirect to the bank's check is read.
    struct NextAction: Decodable, Sendable {
        struct Redirect: Decodable, Sendable { var url: String }
        var type: String
        var redirectToURL: Redirect?

        enum CodingKeys: String, CodingKey {
            case type
            case redirectToURL = "redirect_to_url"
        }
    }

    var id: String
    var status: String
    var amount: Int64
    var currency: String
    var lastPaymentError: StripeError?
    var nextAction: NextAction?
    /// What the shop filed on it: `order_number` and `idempotency_key`.
    var metadata: [String: String]?

    enum CodingKeys: String, CodingKey {
        case id, status, amount, currency, metadata
        case lastPaymentError = "last_payment_error"
        case nextAction = "next_action"
    }

    /// The bank's check (3-D Secure) the shopper must pass at this address before the charge, if Stripe waits for one.
    var bankCheckURL: String? {
        guard status == "requires_action", nextAction?.type == "redirect_to_url" else { return nil }
        return nextAction?.redirectToURL?.url
    }
}

/// A Checkout Session, in setup mode: the page where the shopper adds a card.
struct StripeCheckoutSession: Decodable, Sendable {
    var id: String
    var url: String?
    /// `open`, `complete` or `expired`.
    var status: String?
    /// The SetupIntent the page completes, by id.
    var setupIntent: String?

    enum CodingKeys: String, CodingKey {
        case id, url, status
        case setupIntent = "setup_intent"
    }
}

struct StripeSetupIntent: Decodable, Sendable {
    var id: String
    var status: String
    var paymentMethod: String?
    /// The Stripe Customer the card is set up for.
    var customer: String?

    enum CodingKeys: String, CodingKey {
        case id, status, customer
        case paymentMethod = "payment_method"
    }
}

/// Answers to calls whose body the shop does not read (such as `GET /v1/balance`).
struct StripeAnyObject: Decodable, Sendable {
    var object: String?
}

extension StripeError {
    /// Stripe refused a card number sent by the shop because the account has no raw card data access
    /// ("Sending credit card numbers directly to the Stripe API is generally unsafe…").
    var refusesRawCardData: Bool {
        guard let message = message?.lowercased() else { return false }
        return message.contains("raw card data") || message.contains("sending credit card numbers directly")
    }

    /// The shop's decline reason for a card error, in the same words the sandbox shows; nil when
    /// the error is not about the card.
    var declineReason: DeclineReason? {
        let codes = [declineCode, code].compactMap { $0 }
        // Stripe's own code, the decline code first: "generic" only where neither is one the shop names.
        for code in codes where code != "card_declined" {
            if let reason = DeclineReason(stripeCode: code) { return reason }
        }
        return codes.contains("card_declined") || type == "card_error" ? .generic : nil
    }
}

extension PaymentNetwork {
    /// The network Stripe names in `card.brand`.
    init?(stripeBrand: String?) {
        switch stripeBrand {
        case "visa": self = .visa
        case "mastercard": self = .mastercard
        case "amex": self = .amex
        case "discover": self = .discover
        case "jcb": self = .jcb
        case "diners": self = .diners
        case "unionpay": self = .unionpay
        case "cartes_bancaires": self = .cartesBancaires
        case "eftpos_au": self = .eftpos
        case nil: return nil
        default: self = .other
        }
    }
}
