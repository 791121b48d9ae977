import Crypto
import Foundation
import ShopModels

/// The links a renewal's reminder carries: skip that renewal, pause, cancel, or stop the reminders, each opening a
/// page that asks before anything changes. They work without signing in, until `lifetime` after the renewal they
/// remind of, and only as written: each signs the subscription, the action, the period and its end under a key derived
/// from the shop's code key for this purpose alone.
public struct SubscriptionLinks: Sendable {
    /// How long a link works after the date of the renewal it reminds of.
    public static let lifetime: TimeInterval = 30 * 86_400

    private let signer: LinkSigner
    /// The origin of the shop's `storefront web`: `https://shop.example`.
    public let origin: String

    public init(codeKey: SymmetricKey, origin: String) {
        signer = LinkSigner(codeKey: codeKey, purpose: "storefront subscription link v1")
        self.origin = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
    }

    /// `ORIGIN/subscription/ID/ACTION?p=PERIOD&e=END&s=SIGNATURE`, for the renewal of `subscription`'s current period.
    public func link(_ action: SubscriptionLinkAction, for subscription: Subscription) -> String {
        let expires = Int64(subscription.renewsAt.timeIntervalSince1970 + Self.lifetime)
        let fields = [subscription.id, action.rawValue, String(subscription.period), String(expires)]
        let id = subscription.id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? subscription.id
        return "\(origin)/subscription/\(id)/\(action.rawValue)?p=\(subscription.period)&e=\(expires)&s=\(signer.signature(fields))"
    }

    /// What a link's parts, as it gives them, come to at `now`: the period it was made for when it is valid.
    public func check(id: String, action: SubscriptionLinkAction, period written: String, expires: String, signature: String, now: Date) -> (
        SignedLinkCheck, period: Int
    ) {
        guard id.utf8.count <= 64, written.utf8.count <= 9, let period = Int(written), period > 0 else { return (.invalid, 0) }
        return (signer.check([id, action.rawValue, String(period)], expires: expires, signature: signature, now: now), period)
    }
}
