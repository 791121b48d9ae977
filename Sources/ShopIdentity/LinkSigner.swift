import Crypto
import Foundation

/// Signs and checks the links a shop mails (an order's status page, a reminder's skip): an HMAC-SHA256 of the link's
/// fields under a key derived from the shop's code key for one purpose, so every host that shares that key makes and
/// checks the same links, no one without it can make one, and a link made for one purpose opens nothing else.
public struct LinkSigner: Sendable {
    private let key: SymmetricKey

    /// `purpose` names what the links open (`storefront order status link v1`); it is the derivation's info.
    public init(codeKey: SymmetricKey, purpose: String) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: codeKey, info: Data(purpose.utf8), outputByteCount: 32)
    }

    /// The signature of `fields`, in URL-safe base64 without padding (43 characters).
    public func signature(_ fields: [String]) -> String {
        Data(code(fields)).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// What a link's fields, its written end (seconds since 1970) and its signature come to at `now`; every part
    /// bounded before anything is computed.
    public func check(_ fields: [String], expires written: String, signature: String, now: Date) -> SignedLinkCheck {
        guard written.utf8.count <= 12, signature.utf8.count == 43, let expires = Int64(written), expires > 0,
            fields.allSatisfy({ $0.utf8.count <= 100 }), let given = Self.decoded(signature)
        else { return .invalid }
        // Compared in constant time, so a guess learns nothing from how long the answer took.
        guard code(fields + [String(expires)]) == given else { return .invalid }
        return now.timeIntervalSince1970 < Double(expires) ? .valid : .expired
    }

    private func code(_ fields: [String]) -> HMAC<SHA256>.MAC {
        HMAC<SHA256>.authenticationCode(for: Data(fields.joined(separator: "\n").utf8), using: key)
    }

    private static func decoded(_ signature: String) -> Data? {
        guard signature.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        let base64 = signature.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
        return Data(base64Encoded: base64)
    }
}

/// What a signed link's parts come to at a time.
public enum SignedLinkCheck: Equatable, Sendable {
    case valid
    /// Signed, and past its end.
    case expired
    /// Not a link this shop made: altered, cut, or made up.
    case invalid
}

/// Every link the shop's mails carry to its web front, signed under one code key at one origin.
public struct MailLinks: Sendable {
    public let orders: OrderStatusLinks
    public let subscriptions: SubscriptionLinks

    public init(codeKey: SymmetricKey, origin: String) {
        orders = OrderStatusLinks(codeKey: codeKey, origin: origin)
        subscriptions = SubscriptionLinks(codeKey: codeKey, origin: origin)
    }
}
