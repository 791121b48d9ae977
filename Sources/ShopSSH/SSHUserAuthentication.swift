import LiveObjects
import NIOCore
import NIOSSH

/// The key types swift-nio-ssh 0.15.1 verifies; it has no RSA and no way to add an algorithm.
let acceptedKeyTypes = "Ed25519 or ECDSA (nistp256, nistp384, nistp521)"

/// The ciphers swift-nio-ssh 0.15.1 offers. chacha20-poly1305 needs a 64-byte key, which its key derivation cannot
/// make from a SHA-256 key exchange, and its key exchanges cannot be chosen: Dropbear's ciphers are out of reach.
let offeredCiphers = "aes256-gcm@openssh.com, aes128-gcm@openssh.com"

/// The key exchanges swift-nio-ssh 0.15.1 offers.
let offeredKeyExchanges = "curve25519-sha256, ecdh-sha2-nistp256/384/521"

/// Accepts any public key whose signature swift-nio-ssh has verified as that key's account; with guests allowed, the
/// user name `guest` with no key (the "none" method: no prompt), or any password, as a guest.
///
/// A password is never a credential here: it is how a client with no key this server can verify (an RSA-only client,
/// or none at all) is offered a way in, as a guest; it is neither checked nor kept nor logged.
final class PublicKeyIdentityDelegate: NIOSSHServerUserAuthenticationDelegate {
    /// The user name that gets a guest session with no key and no prompt.
    static let guestUser = "guest"

    private let identity: ConnectionIdentity
    private let peer: String
    private let allowsGuests: Bool
    private let log: @Sendable (String) -> Void

    init(identity: ConnectionIdentity, peer: String, allowsGuests: Bool, log: @escaping @Sendable (String) -> Void) {
        self.identity = identity
        self.peer = peer
        self.allowsGuests = allowsGuests
        self.log = log
    }

    var supportedAuthenticationMethods: NIOSSHAvailableUserAuthenticationMethods { allowsGuests ? [.publicKey, .password] : .publicKey }

    func requestReceived(request: NIOSSHUserAuthenticationRequest, responsePromise: EventLoopPromise<NIOSSHUserAuthenticationOutcome>) {
        switch request.request {
        case .none where allowsGuests && request.username == Self.guestUser, .password where allowsGuests:
            identity.authenticateAsGuest()
            log("guest from \(peer)")
            responsePromise.succeed(.success)
            return
        default:
            break
        }
        // swift-nio-ssh calls this only after checking the signature over the session identifier,
        // so the key is proven, not just named.
        guard case .publicKey(let offer) = request.request else {
            responsePromise.succeed(.failure)
            return
        }
        let fingerprint = SSHPublicKeyIdentity.fingerprint(of: offer.publicKey)
        identity.authenticate(as: fingerprint)
        log("authenticated \(fingerprint) from \(peer)")
        responsePromise.succeed(.success)
    }
}

extension PublicKeyIdentityDelegate: LiveObject {}
