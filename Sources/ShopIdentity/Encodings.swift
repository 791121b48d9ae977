import Crypto
import Foundation

/// The text forms identities and tokens take: base64url without padding, SHA-256 in lowercase hex, random hex ids.
public enum Encodings {
    public static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes `text` holds as base64url, padded or not; nil for anything else.
    public static func decodeBase64URL(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    /// What the shop keeps of a secret (a refresh token, an API token) and keys a body by.
    public static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// `prefix` then `bytes` random bytes in hex (`tok_1f…`, `req_9a…`): the public id of a token or a request.
    public static func randomID(_ prefix: String, bytes: Int = 8) -> String {
        prefix + (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined()
    }
}
