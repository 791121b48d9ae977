import Crypto
import Foundation
import NIOSSH

/// The customer identity a verified SSH public key stands for: its OpenSSH fingerprint.
///
/// There is nothing to sign in to and no token: the server already checked the key's signature.
public enum SSHPublicKeyIdentity {
    /// OpenSSH's `SHA256:` fingerprint of `key`: SHA-256 of its wire-format blob, base64 unpadded.
    public static func fingerprint(of key: NIOSSHPublicKey) -> String {
        // The OpenSSH line is "type base64(blob)"; the blob is what OpenSSH hashes.
        let fields = String(openSSHPublicKey: key).split(separator: " ")
        let blob = fields.count >= 2 ? Data(base64Encoded: String(fields[1])) ?? Data() : Data()
        return fingerprint(ofKeyBlob: blob)
    }

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
}
