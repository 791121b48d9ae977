import Foundation
import ShopPorts

/// A Stripe secret (or restricted) key. It prints as its kind only, so it cannot reach a log
/// line, an error message or a frame by accident: only `authorization` reads the key itself.
public struct StripeSecretKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Why a key was refused before any call.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case empty
        case malformed(kind: String)

        public var description: String {
            switch self {
            case .empty: "the Stripe secret key is empty"
            case .malformed(let kind):
                "the Stripe secret key does not look like one (expected sk_test_…, sk_live_…, rk_test_… or rk_live_…; got \(kind))"
            }
        }
    }

    private let value: String
    /// Test mode or live: Stripe decides by the key, and so does the checkout header.
    public let mode: PaymentMode

    /// Takes a key as read from the environment or a file: surrounding white space (a file's final
    /// newline) is dropped; anything else that is not a Stripe key is refused.
    public init(_ raw: String) throws(Problem) {
        let key = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !key.isEmpty else { throw .empty }
        let kinds: [(prefix: String, mode: PaymentMode)] = [("sk_test_", .test), ("sk_live_", .live), ("rk_test_", .test), ("rk_live_", .live)]
        guard let kind = kinds.first(where: { key.hasPrefix($0.prefix) }),
            key.count > kind.prefix.count, key.count <= 255,
            key.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_") })
        else {
            throw .malformed(kind: Self.kindDescription(of: key))
        }
        value = key
        mode = kind.mode
    }

    /// The `Authorization` header's value.
    var authorization: String { "Bearer \(value)" }

    /// `text` with any copy of the key replaced, and any key Stripe quotes masked (`sk_test_****…1234`) too.
    func redacted(_ text: String) -> String {
        text.replacingOccurrences(of: value, with: "[secret key]")
            .replacing(/\b(?:sk|rk|pk)_(?:test|live)_[A-Za-z0-9*]+/, with: "[secret key]")
    }

    /// Which provider account the key works in, for the references kept per account.
    public var account: String { "stripe:\(mode == .live ? "live" : "test")" }

    public var description: String { mode == .live ? "a live Stripe key" : "a test-mode Stripe key" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["mode": mode]) }

    /// Names what a refused key looks like without repeating it: its first few characters at most.
    private static func kindDescription(of key: String) -> String {
        let shown = key.prefix { $0 != "_" }.prefix(3)
        return shown.isEmpty ? "\(key.count) characters" : "\(key.count) characters starting \"\(shown)\""
    }
}
