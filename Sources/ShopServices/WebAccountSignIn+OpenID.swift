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
        _ signIn: inout WebSignIn, providers: [OpenIDClient], storage: ShopStorage, accounts: AccountSignIn, key: SymmetricKey,
        log: @escaping @Sendable (String) -> Void
    ) {
        let byID = Dictionary(providers.map { ($0.settings.id, $0) }) { first, _ in first }
        signIn.providers = providers.map { ($0.settings.id, $0.settings.name) }
        let states = storage.openIDStates
        /// The provider's address for `state`, which is filed (as a hash) for the callback to take once.
        @Sendable func send(to client: OpenIDClient, state: String, redirect: String) async -> Result<
            (url: String, state: String), WebSignIn.OpenIDStartError
        > {
            do {
                let url = try await client.authorizationURL(
                    state: state, nonce: PKCE.derived("nonce", state: state, key: key), verifier: PKCE.derived("verifier", state: state, key: key),
                    redirectURI: redirect)
                try await states.file(stateHash: Encodings.sha256Hex(state), provider: client.settings.id, at: Date())
                return .success((url, state))
            } catch {
                // A provider that is down, or whose discovery document does not read: the detail is the operator's.
                log("web sign-in: \(client.settings.name) (\(client.settings.issuer)) failed: \(error)")
                return .failure(.init(message: WebSignIn.tryAgainLater(client.settings.name)))
            }
        }
        signIn.startOpenID = { id, redirect in
            guard let client = byID[id] else { return .failure(.init(message: "No such provider.", isUnknownProvider: true)) }
            return await send(to: client, state: PKCE.newState(), redirect: redirect)
        }
        signIn.terminalCode = { TerminalLinkCode.of($0) }
        signIn.startTerminal = { handle, redirect in
            let state = PKCE.newState()
            let provider: String?
            do {
                provider = try await storage.terminalSignIns.open(
                    handleHash: Encodings.sha256Hex(handle), stateHash: Encodings.sha256Hex(state), at: Date(), lifetime: OpenIDTerminalFlow.lifetime)
            } catch {
                log("web sign-in: a terminal's sign-in could not be read: \(error)")
                return .failure(.init(message: WebSignIn.tryAgainLater("Sign-in")))
            }
            guard let provider, let client = byID[provider], let redirectURI = redirect(provider) else {
                return .failure(.init(message: "This link was used already or is over 10 minutes old. Start again in your terminal."))
            }
            return await send(to: client, state: state, redirect: redirectURI)
        }
        signIn.finishOpenID = { id, state, bound, code, user, redirect in
            guard let client = byID[id] else { return .over("No such provider.") }
            // Another browser's callback (a login forged on this visitor) spends nothing.
            guard let bound, Encodings.constantTimeEqual(bound, state) else { return .over(WebSignIn.notThisBrowser) }
            let stateHash = Encodings.sha256Hex(state)
            do {
                guard try await states.take(stateHash: stateHash, provider: id, at: Date(), lifetime: openIDLifetime) else {
                    return .over("This sign-in was used already or took over 10 minutes. Start it again.")
                }
            } catch {
                log("web sign-in: a state could not be taken: \(error)")
                return .over(WebSignIn.tryAgainLater("Sign-in"))
            }
            // A terminal's sign-in: the outcome, either way, goes to it, and wakes it at once.
            let terminal = (try? await storage.terminalSignIns.handle(forState: stateHash)) ?? nil
            let outcome: WebSignIn.CodeOutcome
            do {
                let token = try await client.exchange(code: code, verifier: PKCE.derived("verifier", state: state, key: key), redirectURI: redirect)
                let identity = try await client.verify(idToken: token, nonce: PKCE.derived("nonce", state: state, key: key))
                if let terminal {
                    let name = AppleUser.name(user) ?? identity.name
                    return await tellTerminal(
                        terminal,
                        .signedIn(
                            issuer: identity.issuer, subject: identity.subject, email: identity.email, emailVerified: identity.emailVerified,
                            name: name),
                        storage: storage)
                }
                let account = try await OpenIDAccounts.account(for: identity, in: storage.accounts, at: Date())
                // Apple gives the name once, posted beside the code on the first sign-in: kept then, or never.
                if let name = AppleUser.name(user), (try? await storage.profiles.profile(forCustomer: account.id))??.name == nil {
                    try? await storage.profiles.save(AccountProfile(customerID: account.id, name: name, email: nil))
                }
                outcome = .signedIn(secret: try await accounts.startLogin(account: account.id, kind: .browser, label: client.settings.name).secret)
            } catch let error as OpenIDError {
                log("web sign-in: \(client.settings.name) did not sign a visitor in: \(error)")
                switch error {
                // The ID token's own refusal says nothing of the shop's insides, and may help the visitor start again.
                case .idToken: outcome = .over("\(client.settings.name) did not sign you in: \(error)")
                case .discovery, .keys, .tokenEndpoint: outcome = .over(WebSignIn.tryAgainLater(client.settings.name))
                }
            } catch {
                log("web sign-in: a sign-in with \(client.settings.name) could not be kept: \(error)")
                outcome = .over(WebSignIn.tryAgainLater("Sign-in"))
            }
            if let terminal, case .over(let why) = outcome { _ = await tellTerminal(terminal, .refused(why), storage: storage) }
            return outcome
        }
    }

    /// Records how a terminal's sign-in ended and wakes the terminal waiting on it, on whichever host it runs.
    static func tellTerminal(_ handleHash: String, _ outcome: TerminalSignInOutcome, storage: ShopStorage) async -> WebSignIn.CodeOutcome {
        do {
            guard try await storage.terminalSignIns.finish(handleHash: handleHash, outcome: outcome, at: Date()) else {
                return .over("This terminal's sign-in is over already. Start again in your terminal.")
            }
        } catch {
            return .over("Your sign-in could not be passed to your terminal: \(error)")
        }
        await storage.wakeups.wake(handleHash)
        if case .refused(let why) = outcome { return .over(why) }
        return .terminalSignedIn
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
