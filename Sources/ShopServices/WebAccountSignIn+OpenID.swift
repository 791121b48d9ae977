import Crypto
import Foundation
import ShopBootstrap
import ShopIdentity
import ShopModels
import ShopOpenID
import ShopPorts
import ShopWebFront

extension WebAccountSignIn {
    /// How long a provider's sign-in may take, from the redirect to the callback.
    static let openIDLifetime: TimeInterval = 600

    /// Sign-in with each of `providers`: the `state` filed as a hash, the PKCE verifier and the nonce derived from it
    /// under the install's key (so neither is kept), the callback's state taken once.
    static func addOpenID(
        _ signIn: inout WebSignIn, providers: [OpenIDClient], storage: ShopStorage, accounts: AccountSignIn, key: SymmetricKey
    ) {
        let byID = Dictionary(providers.map { ($0.settings.id, $0) }) { first, _ in first }
        signIn.providers = providers.map { ($0.settings.id, $0.settings.name) }
        let states = storage.openIDStates
        signIn.startOpenID = { id, redirect in
            guard let client = byID[id] else { return .failure(.init(message: "No such provider.")) }
            let state = PKCE.newState()
            do {
                let url = try await client.authorizationURL(
                    state: state, nonce: PKCE.derived("nonce", state: state, key: key), verifier: PKCE.derived("verifier", state: state, key: key),
                    redirectURI: redirect)
                try await states.file(stateHash: Encodings.sha256Hex(state), provider: id, at: Date())
                return .success((url, state))
            } catch {
                return .failure(.init(message: "\(client.settings.name) cannot be reached now: \(error)"))
            }
        }
        signIn.finishOpenID = { id, state, bound, code, user, redirect in
            guard let client = byID[id] else { return .over("No such provider.") }
            // Another browser's callback (a login forged on this visitor) spends nothing.
            guard let bound, Encodings.constantTimeEqual(bound, state) else { return .over(WebSignIn.notThisBrowser) }
            do {
                guard try await states.take(stateHash: Encodings.sha256Hex(state), provider: id, at: Date(), lifetime: openIDLifetime) else {
                    return .over("This sign-in was used already or took over 10 minutes. Start it again.")
                }
                let token = try await client.exchange(code: code, verifier: PKCE.derived("verifier", state: state, key: key), redirectURI: redirect)
                let identity = try await client.verify(idToken: token, nonce: PKCE.derived("nonce", state: state, key: key))
                let account = try await Self.account(for: identity, in: storage.accounts)
                // Apple gives the name once, posted beside the code on the first sign-in: kept then, or never.
                if let name = AppleUser.name(user), (try? await storage.profiles.profile(forCustomer: account.id))??.name == nil {
                    try? await storage.profiles.save(AccountProfile(customerID: account.id, name: name, email: nil))
                }
                return .signedIn(secret: try await accounts.startSession(account: account.id, kind: .browser, label: client.settings.name).secret)
            } catch let error as OpenIDError {
                return .over("\(client.settings.name) did not sign you in: \(error)")
            } catch {
                return .over("Your sign-in could not be kept: \(error)")
            }
        }
    }

    /// The account a provider's subject reaches: the one it was linked to; else the account whose verified email the
    /// provider vouches for, which it joins; else a new one, with that email verified when no account has it.
    static func account(for identity: OpenIDIdentity, in directory: any AccountDirectory) async throws -> CustomerAccount {
        let wayIn = WayIn.openID(issuer: identity.issuer, subject: identity.subject)
        let now = Date()
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
}

/// The `user` Sign in with Apple posts on a first sign-in: `{"name":{"firstName":…,"lastName":…},"email":…}`.
enum AppleUser {
    static func name(_ json: String?) -> String? {
        guard let data = json?.data(using: .utf8), data.count <= 4_096,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let name = object["name"] as? [String: Any]
        else { return nil }
        let parts = [name["firstName"] as? String, name["lastName"] as? String].compactMap { $0?.trimmingCharacters(in: .whitespaces) }
        let full = parts.filter { !$0.isEmpty }.joined(separator: " ")
        return full.isEmpty || full.count > 100 || !MerchantEntry.isPlainLine(full) ? nil : full
    }
}
