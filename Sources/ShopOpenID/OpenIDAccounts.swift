import Foundation
import ShopPorts

/// The account a provider's sign-in reaches, the same from the browser and from a terminal.
public enum OpenIDAccounts {
    /// The account a provider's subject reaches: the one it was linked to; else the account whose verified email the
    /// provider vouches for, which it joins; else a new one, with that email verified when no account has it.
    public static func account(for identity: OpenIDIdentity, in directory: any AccountDirectory, at now: Date) async throws -> CustomerAccount {
        let wayIn = WayIn.openID(issuer: identity.issuer, subject: identity.subject)
        let email = identity.emailVerified ? identity.email?.lowercased() : nil
        if let email, let holder = try await directory.account(verifiedEmail: email) {
            do {
                try await directory.link(wayIn, to: holder.id, at: now)
                return try await directory.account(for: wayIn, at: now) ?? holder
            } catch AccountChangeError.reachesAnotherAccount {
                // Linked to another account before: that link stands.
            }
        }
        guard let account = try await directory.account(for: wayIn, at: now) else {
            throw OpenIDError.idToken("this sign-in was taken off its account")
        }
        if let email, account.emailVerifiedAt == nil { try? await directory.verify(email: email, for: account.id, at: now) }
        return account
    }

    /// The account an SSH key that alone makes up `keyAccount` reaches after its holder signed in with a provider: the
    /// account the subject (or its verified email) already reaches, which the key joins; else the key's own account,
    /// which the subject joins.
    public static func joining(
        key fingerprint: String, of keyAccount: CustomerAccount, identity: OpenIDIdentity, in directory: any AccountDirectory, at now: Date
    ) async throws -> CustomerAccount {
        let wayIn = WayIn.openID(issuer: identity.issuer, subject: identity.subject)
        let email = identity.emailVerified ? identity.email?.lowercased() : nil
        let holder = try await email.asyncMap { try await directory.account(verifiedEmail: $0) } ?? nil
        if holder == nil {
            do {
                try await directory.link(wayIn, to: keyAccount.id, at: now)
                if let email { try? await directory.verify(email: email, for: keyAccount.id, at: now) }
                return try await directory.account(id: keyAccount.id) ?? keyAccount
            } catch AccountChangeError.reachesAnotherAccount {
                // The subject has an account of its own: the key joins it, below.
            }
        }
        let target = try await account(for: identity, in: directory, at: now)
        try await directory.move(.sshKey(fingerprint: fingerprint), to: target.id, at: now)
        return target
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
