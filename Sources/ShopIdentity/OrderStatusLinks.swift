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

    private let key: SymmetricKey
    /// The origin of the shop's `storefront web`: `https://shop.example`.
    public let origin: String

    public init(codeKey: SymmetricKey, origin: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: codeKey, info: Data("storefront order status link v1".utf8), outputByteCount: 32)
        self.origin = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
    }

    /// The link to `order`'s status page: `ORIGIN/order/SF-000001?e=EXPIRY&s=SIGNATURE`.
    public func link(for order: Order) -> String {
        let expires = Int64(order.placedAt.timeIntervalSince1970 + Self.lifetime)
        return "\(origin)/order/\(order.number)?e=\(expires)&s=\(signature(number: order.number, expires: expires))"
    }

    /// What a link's parts come to at `now`.
    public enum Check: Equatable, Sendable {
        case valid
        /// Signed, and past its end.
        case expired
        /// Not a link this shop made: altered, cut, or made up.
        case invalid
    }

    public func check(number: String, expires written: String, signature: String, now: Date) -> Check {
        // Bounded before anything is computed: a number's digits, a signature's length.
        guard number.utf8.count <= 40, written.utf8.count <= 12, signature.utf8.count == 43, let expires = Int64(written), expires > 0,
            let given = Self.decoded(signature)
        else { return .invalid }
        let expected = HMAC<SHA256>.authenticationCode(for: Data("\(number)\n\(expires)".utf8), using: key)
        // Compared in constant time, so a guess learns nothing from how long the answer took.
        guard expected == given else { return .invalid }
        return now.timeIntervalSince1970 < Double(expires) ? .valid : .expired
    }

    private func signature(number: String, expires: Int64) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("\(number)\n\(expires)".utf8), using: key)
        return Data(code).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func decoded(_ signature: String) -> Data? {
        guard signature.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        let base64 = signature.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
        return Data(base64Encoded: base64)
    }
}
