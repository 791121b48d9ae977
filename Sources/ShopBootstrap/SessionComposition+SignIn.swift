import Foundation
import ShopCredentialFile
import ShopIdentity
import ShopLanguages
import ShopOpenID
import ShopPorts
import StorefrontCore

/// Sign-in by an emailed code, where the shop can mail: for a local terminal, into the account of the email; for a key
/// seen for the first time, joining the account its holder has. (A browser visitor signs in on the page, `web`'s.)
extension SessionComposition {
    /// What the ways in need: the mailer (when the shop can mail), the codes (hashed under the install's key), the
    /// accounts' sessions, and the OpenID Connect providers a terminal may sign in with.
    public struct CodeSignIn: Sendable {
        var mailer: CodeMailer?
        var codes: EmailCodes
        var accounts: AccountSignIn
        var providers: TerminalProviders?

        public init(mailer: CodeMailer?, codes: EmailCodes, accounts: AccountSignIn, providers: TerminalProviders? = nil) {
            self.mailer = mailer
            self.codes = codes
            self.accounts = accounts
            self.providers = providers
        }

        /// Nil without a mailer or a provider; an unreadable code key is the error to tell (sign-in off, the shop still opens).
        static func make(storage: ShopStorage, mailer: CodeMailer?, providers: TerminalProviders?, environment: [String: String])
            -> Result<CodeSignIn, CodeSignInOff>?
        {
            guard mailer != nil || providers != nil else { return nil }
            let credentials = FileCredentialRepository(path: FileCredentialRepository.defaultPath(environment: environment))
            do {
                let key = try AccountSignIn.codeKey(environment: environment, credentials: credentials)
                return .success(
                    CodeSignIn(
                        mailer: mailer, codes: EmailCodes(store: storage.signInCodes, key: key),
                        accounts: AccountSignIn(directory: storage.accounts, logins: storage.logins, dates: .system),
                        providers: providers))
            } catch {
                return .failure(CodeSignInOff(reason: "Sign-in is off: the code key cannot be read: \(error)"))
            }
        }

        /// Sign-in into the account of an email, or of a provider's subject: its session's secret is kept by `auth`
        /// (the credential file). With providers, a choice comes first.
        public func signIn(kind: LoginKind, client: String, auth: AuthManager) -> SignInServices {
            let accounts = accounts
            let email = mailer.map { mailer in
                EmailCodeFlow(
                    title: Localized("Sign in with your email"),
                    intro: Localized("Enter your email: a code is sent there, and signs you in to its account."),
                    purpose: .signIn, client: client, codes: codes, mailer: mailer, dates: accounts.dates
                ) { email throws(SignInError) in
                    do {
                        let (account, session) = try await accounts.signIn(verifiedEmail: email, kind: kind, label: "email code")
                        return AccountCredential(user: account.id, email: account.email, fullName: account.name, session: session)
                    } catch {
                        throw .failed("Your account could not be opened: \(error)")
                    }
                }
            }
            let ways = providers?.ways { client, identity throws(SignInError) in
                do {
                    let account = try await OpenIDAccounts.account(for: identity, in: accounts.directory, at: accounts.dates.now())
                    let session = try await accounts.startLogin(account: account.id, kind: kind, label: client.settings.name)
                    return AccountCredential(user: account.id, email: account.email, fullName: account.name ?? identity.name, session: session)
                } catch {
                    throw .failed("\(client.settings.name) did not sign you in: \(error)")
                }
            }
            return SignInServices(
                makeController: Self.factory(title: Localized("Sign in"), email: email, providers: ways ?? []),
                provider: ShopAccountProvider(accounts),
                auth: auth,
                kind: .account, name: email == nil ? "a provider" : "an emailed code")
        }

        /// The email's flow alone, or a choice of it and the providers.
        static func factory(title: Localized, email: EmailCodeFlow?, providers: [SignInChoiceController.Way]) -> SignInControllerFactory {
            if providers.isEmpty, let email { return email.controllerFactory }
            let ways =
                (email.map { flow in [SignInChoiceController.Way(name: "Email code") { EmailCodeSignInController(flow: flow) }] } ?? []) + providers
            return { _ in SignInChoiceController(title: title, ways: ways) }
        }

        /// A key that alone makes up its account joins the account of an email its holder proves; an email no account
        /// has becomes this account's. Nil for a key of a real account (another way in, or a verified email).
        public func keyJoining(_ account: CustomerAccount, fingerprint: String) -> SignInServices? {
            guard account.waysIn.count == 1, account.emailVerifiedAt == nil else { return nil }
            let (directory, dates) = (accounts.directory, accounts.dates)
            let ways = providers?.ways { client, identity throws(SignInError) in
                do {
                    let target = try await OpenIDAccounts.joining(key: fingerprint, of: account, identity: identity, in: directory, at: dates.now())
                    return AccountCredential(user: target.id, email: target.email, fullName: target.name ?? identity.name, session: nil)
                } catch let error as AccountChangeError {
                    throw .failed(Self.joinRefusal(error))
                } catch {
                    throw .failed("\(client.settings.name) did not sign you in: \(error)")
                }
            }
            let flow = mailer.map { mailer in
                EmailCodeFlow(
                    title: Localized("Join your account"),
                    intro: Localized("Have an account? Enter its email: the code sent there adds this key to it."),
                    purpose: .linkKey, client: "ssh:" + fingerprint, codes: codes, mailer: mailer, dates: dates
                ) { email throws(SignInError) in
                    let email = email.lowercased()
                    do throws(AccountChangeError) {
                        guard let target = try? await directory.account(verifiedEmail: email) else {
                            try await directory.verify(email: email, for: account.id, at: dates.now())
                            return AccountCredential(user: account.id, email: email, fullName: nil, session: nil)
                        }
                        try await directory.move(.sshKey(fingerprint: fingerprint), to: target.id, at: dates.now())
                        return AccountCredential(user: target.id, email: target.email, fullName: target.name, session: nil)
                    } catch {
                        throw .failed(Self.joinRefusal(error))
                    }
                }
            }
            return SignInServices(
                makeController: Self.factory(title: Localized("Join your account"), email: flow, providers: ways ?? []),
                provider: ShopAccountProvider(accounts),
                auth: nil, kind: .sshKey, name: flow == nil ? "a provider" : "an emailed code")
        }

        static func joinRefusal(_ error: AccountChangeError) -> String {
            switch error {
            case .reachesAnotherAccount:
                "This key's account has keys or an email of its own; the shop can join two accounts (storefront accounts merge)."
            case .emailTaken: "That email is another account's."
            case .storage(let why): "The key could not join the account: \(why)"
            case .noSuchAccount, .lastWayIn, .notLinked: "The key could not join the account: \(error)"
            }
        }
    }

    /// The OpenID Connect providers a terminal signs in with, and what their links and waits need.
    public struct TerminalProviders: Sendable {
        public var clients: [OpenIDClient]
        public var webOrigin: String?
        var terminals: any TerminalSignIns
        var wakeups: any SignInWakeups
        var clock: any Clock<Duration>
        /// Fixes each link's handle (tests whose frames show it); nil for the flow's own random ones.
        var newHandle: (@Sendable () -> String)?

        public init(
            clients: [OpenIDClient], webOrigin: String?, terminals: any TerminalSignIns, wakeups: any SignInWakeups, clock: any Clock<Duration>,
            newHandle: (@Sendable () -> String)? = nil
        ) {
            self.clients = clients
            self.webOrigin = webOrigin
            self.terminals = terminals
            self.wakeups = wakeups
            self.clock = clock
            self.newHandle = newHandle
        }

        /// One way per provider, each ending with what `accepted` makes of who signed in.
        func ways(
            _ accepted: @escaping @Sendable (OpenIDClient, OpenIDIdentity) async throws(SignInError) -> any SignInCredential
        ) -> [SignInChoiceController.Way] {
            clients.map { client in
                var flow = OpenIDTerminalFlow(
                    client: client, webOrigin: webOrigin, terminals: terminals, wakeups: wakeups, dates: .system, clock: clock
                ) { identity throws(SignInError) in try await accepted(client, identity) }
                if let newHandle { flow.newHandle = newHandle }
                return SignInChoiceController.Way(name: client.settings.name) { OpenIDTerminalSignInController(flow: flow) }
            }
        }
    }

    /// Why code sign-in is off, for the launch notice.
    struct CodeSignInOff: Error {
        var reason: String
    }

    /// What a key seen for the first time is told when the shop opens.
    public static let newKeyNotice = Localized("New key? If you have an account, open Account (u) and press i to enter its email.")

    /// The console a session opens: the merchant console, named after the key, for a key whose account the operator
    /// named a merchant (`storefront admins`); else the one asked for. Decided afresh at every connection.
    static func console(_ asked: Console, visitor: Visitor, account: CustomerAccount?, storage: ShopStorage) async -> Console {
        guard asked == .shop, case .keyHolder(let fingerprint) = visitor, let account, (try? await storage.admins.isAdmin(account.id)) == true
        else { return asked }
        return .merchant(name: "ssh:" + fingerprint)
    }
}
