import Foundation
import ShopSessions

/// The shop behind the system's OpenSSH server: sshd does the SSH (every key type it supports, RSA among them) and
/// hands the shop the key it verified.
///
/// Order of calls, per connection: sshd runs `storefront sshd-keys %t %k` (`AuthorizedKeysCommand`), which accepts
/// any well-formed key with `restrict,pty` → sshd verifies the client's signature → `ForceCommand storefront
/// sshd-session …` reads the verified key from `$SSH_USER_AUTH` (`ExposeAuthInfo yes`) and becomes the shop for that
/// key's fingerprint, exactly as the embedded server's sessions are.
public enum OpenSSHFront {
    /// The key types OpenSSH names in `%t` that the shop accepts: every one sshd verifies, security keys among them.
    public static let keyTypes: Set<String> = [
        "ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
        "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
    ]

    /// The authorized_keys line for a key sshd was offered: any well-formed key may sign in, with no forwarding, no
    /// agent, no X11 and no rc file (`restrict`) but a terminal (`pty`); nil for a key type or blob that is not one.
    public static func authorizedKeysLine(type: String, key: String) -> String? {
        guard keyTypes.contains(type), let blob = Data(base64Encoded: key), blob.count >= 19, blob.count <= 4_096,
            keyBlobType(blob) == type
        else { return nil }
        return "restrict,pty \(type) \(key)"
    }

    /// Who sshd says the client is, from the file `$SSH_USER_AUTH` names (`ExposeAuthInfo yes`): the fingerprint of the
    /// public key it verified (the last one, where several methods were used), or nil when no key was used.
    public static func verifiedKeyFingerprint(authInfo text: String) -> String? {
        var fingerprint: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: " ")
            guard fields.count >= 3, fields[0] == "publickey", keyTypes.contains(String(fields[1])),
                let blob = Data(base64Encoded: String(fields[2])), keyBlobType(blob) == String(fields[1])
            else { continue }
            fingerprint = SSHPublicKeyIdentity.fingerprint(ofKeyBlob: blob)
        }
        return fingerprint
    }

    /// The type a key blob names in its first field (an SSH string: a 4-byte big-endian length, then the name).
    static func keyBlobType(_ blob: Data) -> String? {
        let bytes = [UInt8](blob)
        guard bytes.count >= 4 else { return nil }
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard length > 0, length <= 64, bytes.count >= 4 + length else { return nil }
        return String(bytes: bytes[4..<(4 + length)], encoding: .ascii)
    }

    /// The `sshd_config` block for the shop's system user `user`: sshd accepts every key through `keysCommand`,
    /// exposes the one it verified, and runs nothing but `sessionCommand`.
    public static func configSnippet(user: String, keysCommand: String, sessionCommand: String) -> String {
        """
        # Storefront behind OpenSSH (storefront sshd-config): every key sshd verifies gets the shop, and the key's
        # fingerprint is the shopper's account. Nothing else runs: no shell, command, sftp, forwarding, agent or X11.
        Match User \(user)
            AuthenticationMethods publickey
            PubkeyAuthentication yes
            AuthorizedKeysFile none
            AuthorizedKeysCommand \(keysCommand) %t %k
            AuthorizedKeysCommandUser \(user)
            ExposeAuthInfo yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
        \(onlyTheShop(sessionCommand))

        """
    }

    /// The `sshd_config` block for the guests' system user `user`: an empty password lets a client in with no key and
    /// no prompt (sshd's "none" method), and it too runs nothing but `sessionCommand`.
    public static func guestConfigSnippet(user: String, sessionCommand: String) -> String {
        """
        # Storefront's guests (storefront sshd-config --guest-user): no key, no prompt, nothing kept. The user has the
        # shop user's UID (so it shares its data), an empty password (passwd -d) and the storefront binary as its
        # shell (not in /etc/shells), which runs nothing but this block's command: su to it gives no shell.
        Match User \(user)
            PasswordAuthentication yes
            PermitEmptyPasswords yes
            PubkeyAuthentication no
            KbdInteractiveAuthentication no
            MaxSessions 1
        \(onlyTheShop(sessionCommand))

        """
    }
}

extension OpenSSHFront {
    /// The lines of a `Match` block that run nothing but the shop, with a terminal and no forwarding of any kind.
    static func onlyTheShop(_ sessionCommand: String) -> String {
        [
            "ForceCommand \(sessionCommand)", "PermitTTY yes", "DisableForwarding yes", "AllowAgentForwarding no", "AllowTcpForwarding no",
            "AllowStreamLocalForwarding no", "X11Forwarding no", "PermitTunnel no", "PermitUserRC no",
            // The shopper's language: read for the shop's words only, never as the session's locale.
            "AcceptEnv LANG LC_ALL LC_MESSAGES LANGUAGE",
        ].map { "    " + $0 }.joined(separator: "\n")
    }
}

/// Guest slots shared by every `sshd-session --guest` process on a host: lock files in a directory, each held with
/// `flock` by the session that took it, for as long as its process (the shop it becomes) lives. A crashed session's
/// lock goes with it, so no count can drift.
///
/// Order of calls: `take(from:)` → the session execs the shop, keeping the descriptors (not close-on-exec).
public struct GuestSlots: Sendable {
    public let directory: String
    public let maxGuests: Int
    public let guestsPerAddress: Int

    public init(directory: String, maxGuests: Int, guestsPerAddress: Int) {
        self.directory = directory
        self.maxGuests = maxGuests
        self.guestsPerAddress = guestsPerAddress
    }

    /// Takes an address slot and a slot of all for `address`; the descriptors to keep open, or why the guest is refused.
    public func take(from address: String) -> Result<[Int32], AdmissionControl.Refusal> {
        guard maxGuests > 0 else { return .failure(.noGuests) }
        // The address names files: only the characters of an IPv4 or IPv6 address are kept.
        let safe = String(address.filter { $0.isHexDigit || $0 == "." || $0 == ":" }.prefix(45)).replacingOccurrences(of: ":", with: "_")
        guard let own = lock(prefix: "address-\(safe.isEmpty ? "unknown" : safe)", count: guestsPerAddress) else {
            return .failure(.tooManyGuests(source: address, limit: guestsPerAddress))
        }
        guard let shared = lock(prefix: "guest", count: maxGuests) else {
            close(own)
            return .failure(.guestsFull(limit: maxGuests))
        }
        return .success([own, shared])
    }

    /// The first of `count` lock files `prefix-N.lock` no other process holds, locked; nil when all are held.
    private func lock(prefix: String, count: Int) -> Int32? {
        for index in 0..<count {
            let descriptor = open("\(directory)/\(prefix)-\(index).lock", O_RDWR | O_CREAT | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { continue }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return descriptor }
            close(descriptor)
        }
        return nil
    }
}
