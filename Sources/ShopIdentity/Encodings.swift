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

    /// `bytes` bytes from the system's CSPRNG in base64url: a session's secret, a sign-in's `state`.
    public static func randomToken(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether two secrets are equal, in a time that does not depend on where they differ.
    public static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let (a, b) = (Array(left.utf8), Array(right.utf8))
        return a.count == b.count && zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// `prefix` then `bytes` random bytes in hex (`tok_1f…`, `req_9a…`): the public id of a token or a request.
    public static func randomID(_ prefix: String, bytes: Int = 8) -> String {
        prefix + (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined()
    }
}

/// The code a terminal shows beside its sign-in link, and the page the link opens shows too: whoever opens the link
/// checks it is their own terminal's before signing in.
public enum TerminalLinkCode {
    /// Eight letters and digits without look-alikes, as "ABCD-EFGH", from the link's handle.
    public static func of(_ handle: String) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let digest = Array(SHA256.hash(data: Data(("terminal-link:" + handle).utf8)))
        let letters = digest.prefix(8).map { alphabet[Int($0) % alphabet.count] }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }
}
