import Crypto
import Foundation

/// Compact JWTs signed with Ed25519 ("EdDSA"): the format of the sandbox identity and access tokens.
struct SignedToken {
    /// Encodes `claims` and signs them with `key`.
    static func make(claims: [String: Any], key: Curve25519.Signing.PrivateKey, keyID: String) throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "EdDSA", "typ": "JWT", "kid": keyID], options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let signingInput = Encodings.base64URL(header) + "." + Encodings.base64URL(payload)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Encodings.base64URL(signature)
    }

    /// The claims of `token` when `key` signed it; nil for anything else (malformed, another key, altered).
    static func claims(of token: String, key: Curve25519.Signing.PublicKey) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let header = Encodings.decodeBase64URL(parts[0]),
            let headerFields = try? JSONSerialization.jsonObject(with: header) as? [String: Any],
            headerFields["alg"] as? String == "EdDSA",
            let payload = Encodings.decodeBase64URL(parts[1]),
            let signature = Encodings.decodeBase64URL(parts[2]),
            key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        else { return nil }
        return try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
    }

}
