import Foundation
import NIOSSH
import StoreIdentity

/// The customer identity a verified SSH public key stands for.
public enum SSHPublicKeyIdentity {
    /// OpenSSH's `SHA256:` fingerprint of `key`: SHA-256 of its wire-format blob, base64 unpadded.
    public static func fingerprint(of key: NIOSSHPublicKey) -> String {
        // The OpenSSH line is "type base64(blob)"; the blob is what OpenSSH hashes.
        let fields = String(openSSHPublicKey: key).split(separator: " ")
        let blob = fields.count >= 2 ? Data(base64Encoded: String(fields[1])) ?? Data() : Data()
        return SSHKeyIdentityProvider.fingerprint(ofKeyBlob: blob)
    }
}
