import Crypto
import Foundation
import ShopModels

/// The link a receipt carries to its order's status page: it works without signing in, for 90 days from the order,
/// and only as written. Its signature is an HMAC-SHA256 of the order's number and the link's end, under a key derived
/// from the shop's code key (`STOREFRONT_CODE_KEY`, or the credential file's), so every host that shares that key
/// makes and checks the same links, and no one without it can make one.
public struct OrderStatusLinks: Sendable {
    /// How long a link works, from the order's time.
    public static let lifetime: TimeInterval = 90 * 86_400
    public typealias Check = SignedLinkCheck

    private let signer: LinkSigner
    /// The origin of the shop's `storefront web`: `https://shop.example`.
    public let origin: String

    public init(codeKey: SymmetricKey, origin: String) {
        signer = LinkSigner(codeKey: codeKey, purpose: "storefront order status link v1")
        self.origin = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
    }

    /// The link to `order`'s status page: `ORIGIN/order/SF-000001?e=EXPIRY&s=SIGNATURE`.
    /// A product's picture on the web front, by its digest: the address a receipt's line shows it from.
    public func picture(_ digest: String) -> String { "\(origin)/pictures/\(digest)" }

    public func link(for order: Order) -> String {
        let expires = Int64(order.placedAt.timeIntervalSince1970 + Self.lifetime)
        return "\(origin)/order/\(order.number)?e=\(expires)&s=\(signer.signature([order.number, String(expires)]))"
    }

    public func check(number: String, expires written: String, signature: String, now: Date) -> Check {
        guard number.utf8.count <= 40 else { return .invalid }
        return signer.check([number], expires: written, signature: signature, now: now)
    }
}
