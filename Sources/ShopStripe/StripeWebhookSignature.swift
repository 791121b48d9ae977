import Crypto
import Foundation
import ShopPorts

/// Stripe's `Stripe-Signature` header checked against the endpoint's secrets.
///
/// The header is `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`: each `v1` is HMAC-SHA256 over `<t>.<payload>` keyed with an
/// endpoint secret (`whsec_…`, the whole string). While a secret is rotated Stripe signs with both, and the shop may
/// hold both: any one match of any secret passes. Other schemes (`v0`, the test-mode scheme) are ignored.
public struct StripeWebhookSignature: Sendable {
    /// How far a signature's time may be from now: Stripe's own libraries' default.
    public static let defaultTolerance: Duration = .seconds(300)

    /// 9999-12-31T23:59:59Z: the last `t=` taken.
    static let latestTimestamp: Int64 = 253_402_300_799

    private let keys: [SymmetricKey]
    private let tolerance: Duration

    /// `secrets` are the endpoint's signing secrets; none may be empty.
    public init(secrets: [String], tolerance: Duration = defaultTolerance) {
        keys = secrets.map { SymmetricKey(data: Data($0.utf8)) }
        self.tolerance = tolerance
    }

    /// Checks `header` for `payload` at `now`; the refusal says which part failed, never a secret.
    public func check(_ payload: [UInt8], header: String?, now: Date) throws(WebhookRefusal) {
        guard let header, !header.isEmpty else { throw .badSignature("no Stripe-Signature header") }
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0] {
            // Bounded before any arithmetic: a time past year 9999 is no time Stripe signs.
            case "t": timestamp = Int64(pair[1]).flatMap { (0...Self.latestTimestamp).contains($0) ? $0 : nil }
            case "v1": if let bytes = Self.hexBytes(pair[1]) { signatures.append(bytes) }
            default: continue
            }
        }
        guard let timestamp else { throw .badSignature("the Stripe-Signature header has no timestamp (t=, whole seconds since 1970)") }
        guard !signatures.isEmpty else { throw .badSignature("the Stripe-Signature header has no v1 signature") }
        let signedAt = Date(timeIntervalSince1970: TimeInterval(timestamp))
        guard abs(now.timeIntervalSince(signedAt)) <= Double(tolerance.components.seconds) else { throw .stale(signedAt: signedAt, now: now) }
        let signed = Array("\(timestamp).".utf8) + payload
        // HMAC's own comparison takes the same time wherever the bytes differ.
        for key in keys where signatures.contains(where: { HMAC<SHA256>.isValidAuthenticationCode($0, authenticating: signed, using: key) }) {
            return
        }
        throw .badSignature("no v1 signature matches the endpoint's secret")
    }

    /// The header Stripe would send for `payload` signed with `secret` at `time`: for tests and for replaying an event.
    public static func header(for payload: [UInt8], secret: String, at time: Date) -> String {
        let timestamp = Int64(time.timeIntervalSince1970)
        let code = HMAC<SHA256>.authenticationCode(for: Array("\(timestamp).".utf8) + payload, using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(timestamp),v1=" + code.map { String(format: "%02x", $0) }.joined()
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        guard text.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
