import Crypto
import Foundation
import StoreClients

/// The identity of a shopper who came in over SSH: the fingerprint of the key the server verified.
///
/// There is nothing to sign in to and no token: the server already checked the key's signature.
public struct SSHKeyIdentityProvider: SignInProviding {
    /// The fingerprint the SSH server handed to this session process.
    public let fingerprint: String

    public init(fingerprint: String) { self.fingerprint = fingerprint }

    /// OpenSSH's fingerprint of a public key blob: "SHA256:" and the unpadded base64 of its SHA-256.
    public static func fingerprint(ofKeyBlob blob: some DataProtocol) -> String {
        "SHA256:" + Data(SHA256.hash(data: Data(blob))).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    /// Whether `text` looks like an OpenSSH SHA-256 fingerprint.
    public static func isFingerprint(_ text: String) -> Bool {
        guard text.hasPrefix("SHA256:") else { return false }
        let body = text.dropFirst("SHA256:".count)
        return body.count == 43 && body.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }
    }

    public func credentialState(forUserID user: String) async -> CredentialState {
        user == fingerprint ? .authorized : .notFound
    }

    public func verifyAccessToken(_ token: String) async -> AccessTokenCheck { .invalid("SSH keys use no tokens") }
    public func verifyIdentityToken(_ token: String, nonce: String?) async -> AccessTokenCheck { .invalid("SSH keys use no tokens") }
    public func refresh(refreshToken: String) async throws(SignInError) -> SessionTokens { throw .failed("SSH keys use no tokens") }
    public func revoke(refreshToken: String) async {}
}
