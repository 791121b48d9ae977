import Crypto
import Foundation
import ShopApplication
import ShopCredentialFile
import ShopIdentity
import ShopLanguages
import ShopModels
import ShopOpenID
import ShopPorts
import ShopQRCode
import ShopSSH
import ShopSandbox
import ShopSessions
import StorefrontCore

/// The shop's dependencies: the catalog, orders, wallets and the providers' records in its database, the
/// payment provider the configuration picks (the sandbox by default), Sandbox ID sign-in with
/// tokens in the credential file.
///
/// Order of calls: the payment stack → settle orders an earlier stop left open → pick the identity
/// (an SSH key handed over by `storefront serve`, or Sandbox ID) → the launch check of a stored
/// sign-in → dependencies. The caller closes the payment stack when the shop ends.
public enum SessionComposition {
    public static func dependencies(
        storage: ShopStorage, configuration: ShopConfiguration,
        environment: [String: String], clock: any Clock<Duration>, latency: Duration, console: Console = .shop, codeMailer: CodeMailer? = nil,
        openID: TerminalOpenIDSettings? = nil, log: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(ServiceStartFailure) -> (dependencies: StorefrontDependencies, settlement: StartSettlement, payments: PaymentStack) {
        let ids = IDGenerator.random
        let fault = FaultHook(environment: environment)
        let payments: PaymentStack
        do {
            payments = try PaymentStack.make(
                configuration: configuration, environment: environment, ledger: storage.ledger, references: storage.references,
                currency: storage.catalog.shop.currency, clock: clock, latency: latency, fault: fault, log: log
            )
        } catch {
            throw .configuration(error.description)
        }
        let backend = storage.merchantBackend(payments, environment: environment)
        let backOffice = storage.backOffice(payments, environment: environment)
        let settlement: StartSettlement
        do {
            let charges = try await backend.reconcile(minimumAge: ShopStorage.settleAfter(environment: environment))
            settlement = StartSettlement(settled: charges.settled, leftOpen: charges.leftOpen, refunds: try await backOffice.finishPendingRefunds())
        } catch {
            throw .cannotSettle("cannot settle earlier orders: \(error)")
        }
        let visitor = try Visitor(environment)
        let keyAccount = try await Self.keyAccount(visitor, storage: storage)
        // A key of a merchant account opens the merchant console, wherever the key connects.
        let console = await Self.console(console, visitor: visitor, account: keyAccount, storage: storage)
        let guestID = visitor.guestID
        let provider = payments.provider
        // The labelled test cards belong to the sandbox: with a real provider they could not be charged.
        let seedsTestCards = provider.mode == .sandbox && configuration.sandboxTestCards ?? true
        let stored: any WalletRepository
        let accounts: AccountDependencies
        // A guest keeps nothing: wallet and cart live as long as the session. A browser guest who signs in reaches
        // the account's own, kept ones.
        let kept: any WalletRepository =
            switch visitor {
            case .sshGuest: InMemoryWalletRepository()
            case .browserGuest: GuestKeptApartWalletRepository(guest: guestID, forAccounts: storage.wallets)
            case .keyHolder, .local, .browserAccount: storage.wallets
            }
        do { stored = seedsTestCards ? try SandboxSeededWalletRepository(kept) : kept } catch {
            throw .configuration("cannot read the sandbox's sample wallet: \(error)")
        }
        let wallets = ChargeableCardsWalletRepository(CardForgettingWalletRepository(stored) { await provider.forget(cardID: $0) }) {
            provider.canCharge($0)
        }
        let owner = WalletOwner(guestID)
        accounts = await Self.accounts(
            storage: storage, wallets: wallets, owner: owner, visitor: visitor, keyAccount: keyAccount, sandboxPayments: provider.mode == .sandbox,
            codeSignIn: CodeSignIn.make(
                storage: storage, mailer: codeMailer, providers: Self.terminalProviders(openID, storage: storage, clock: clock),
                environment: environment),
            environment: environment
        )
        let carts: any CartRepository =
            switch visitor {
            case .sshGuest: InMemoryCartRepository()
            case .browserGuest: GuestKeptApartCartRepository(guest: guestID, forAccounts: storage.carts)
            case .keyHolder, .local, .browserAccount: storage.carts
            }
        var dependencies = storage.storefrontDependencies(
            payments: provider,
            paymentAuthorization: .onTheSheet(wallet: StoredWallet(repository: wallets, owner: owner), methodData: payments.methodData),
            backend: backend, backOffice: backOffice, accounts: accounts, carts: carts, featureFlags: configuration.featureFlags, ids: ids,
            qrCodes: LibQREncoder(), clock: clock, console: console, dates: storage.clock.dates)
        dependencies.language = language(environment: environment, configuration: configuration)
        dependencies.region = region(environment: environment)
        // The storage's catalog is its home market's (`pricingMarkets`); a session moves between the markets it priced.
        if let home = dependencies.catalog as? MarketCatalog {
            dependencies.markets = home.pricing
        } else {
            do { dependencies.markets = try configuration.marketPricing(for: dependencies.catalog.shop) } catch {
                throw .configuration(error.description)
            }
        }
        return (dependencies, settlement, payments)
    }

    /// The language a session opens in: its shopper's client's (an SSH session's `LANG`, a browser's
    /// `Accept-Language`, carried in `SessionLanguage.variable`), the shop's `language` setting, this process's own
    /// locale variables (`storefront run` in a German terminal), then English.
    public static func language(environment: [String: String], configuration: ShopConfiguration) -> Language {
        environment[SessionLanguage.variable].flatMap(Language.named) ?? configuration.language ?? Language.fromEnvironment(environment)
            ?? .english
    }

    /// The shopper's country as their locale names it (`de_AT.UTF-8`, a browser's `de-CH`): the client's, else this
    /// process's own; nil when neither names one.
    public static func region(environment: [String: String]) -> String? {
        let tag = environment[SessionLanguage.variable].flatMap(SessionLanguage.normalized) ?? Language.localeTag(fromEnvironment: environment)
        return tag.flatMap(Language.region(in:))
    }

    /// The providers a terminal signs in with, over HTTPS; nil without any.
    static func terminalProviders(_ settings: TerminalOpenIDSettings?, storage: ShopStorage, clock: any Clock<Duration>) -> TerminalProviders? {
        guard let settings, !settings.providers.isEmpty else { return nil }
        return TerminalProviders(
            clients: settings.providers.map { OpenIDClient(settings: $0, transport: HTTPOpenIDTransport()) }, webOrigin: settings.webOrigin,
            terminals: storage.terminalSignIns, wakeups: storage.wakeups, clock: clock)
    }

    /// The account an SSH key reaches, looked up afresh at every session on the shop's database, so a key taken off its
    /// account on any host is refused at its next connection; nil for a visitor without a key.
    public static func keyAccount(_ visitor: Visitor, storage: ShopStorage, at date: Date = Date()) async throws(ServiceStartFailure)
        -> CustomerAccount?
    {
        guard case .keyHolder(let fingerprint) = visitor else { return nil }
        let account: CustomerAccount?
        do {
            account = try await storage.accounts.account(for: .sshKey(fingerprint: fingerprint), at: date)
        } catch {
            throw ServiceStartFailure(.io, "cannot read the accounts: \(error)")
        }
        guard let account else {
            throw ServiceStartFailure(
                .refused, "This SSH key (\(fingerprint)) was taken off its account, so it is refused. Use another key of the account.")
        }
        return account
    }

    /// What a guest over SSH is told when the shop opens.
    public static let sshGuestNotice = Localized("Guest: nothing is kept after you leave. Use an SSH key for an account.")

    /// What a browser visitor is told when the shop opens.
    public static let browserGuestNotice = Localized("Guest: nothing is kept. Sign in (Account) for your saved cards.")

    /// What a browser visitor is told where the page offers sign-in by an emailed code.
    public static let browserSignInAboveNotice = Localized("Guest: nothing is kept. Sign in above the shop to keep your cart and orders.")

    /// What a visitor of a public browser shop is told: no sign-in there until real sign-in comes.
    public static let browserPublicGuestNotice = Localized("Guest: nothing is kept after you leave this page.")

    /// What the local shop says when payments are real: Sandbox ID is for trying the shop out.
    public static let localSignInOffNotice = Localized("Sign-in is off: Sandbox ID shows its own code, so it is offered only with sandbox payments.")

    /// Who is shopping: the SSH key `serve` verified, a guest `serve` or `web` let in, a stored sign-in (an emailed
    /// code's, or Sandbox ID's) that still holds, or the local guest.
    private static func accounts(
        storage: ShopStorage, wallets: any WalletRepository, owner: WalletOwner, visitor: Visitor, keyAccount: CustomerAccount?,
        sandboxPayments: Bool, codeSignIn: Result<CodeSignIn, CodeSignInOff>?, environment: [String: String]
    ) async -> AccountDependencies {
        let guestID = visitor.guestID
        switch visitor {
        case .sshGuest:
            return AccountDependencies(
                wallets: wallets, walletOwner: owner, profiles: InMemoryAccountProfileRepository(), signIn: nil,
                launchNotice: sshGuestNotice, guestID: guestID, dates: storage.clock.dates
            )
        case .keyHolder(let fingerprint):
            // The key reaches its account (made by it, or by another key it was linked to); no tokens in the local
            // credential file. A key that alone makes its account may join the account of an email its holder proves.
            let joining = try? codeSignIn?.get()
            let join = keyAccount.flatMap { joining?.keyJoining($0, fingerprint: fingerprint) }
            let isNew = keyAccount.map { $0.waysIn.count == 1 && $0.waysIn.first?.addedAt == $0.waysIn.first?.lastUsedAt } ?? false
            return AccountDependencies(
                wallets: wallets, walletOwner: owner, profiles: storage.profiles, signIn: join,
                signedIn: SignedInAccount(provider: .sshKey, userID: fingerprint, customerID: keyAccount?.id),
                launchNotice: join != nil && isNew ? newKeyNotice : nil, guestID: guestID, dates: storage.clock.dates,
                apiTokens: .shopTokens(in: storage.tokens), waysIn: storage.waysIn
            )
        case .browserAccount(let account, let session, _):
            // The page's cookie holds a session of this account, checked by `web` as the socket opened and while the tab
            // is open (a sign-out anywhere closes it); the page signs out. Tokens made here end with that session.
            return AccountDependencies(
                wallets: wallets, walletOwner: owner, profiles: storage.profiles, signIn: nil,
                signedIn: SignedInAccount(provider: .account, userID: account), guestID: guestID, dates: storage.clock.dates,
                apiTokens: .shopTokens(in: storage.tokens, session: session), waysIn: storage.waysIn)
        case .browserGuest, .local:
            break
        }
        let isBrowser = if case .browserGuest = visitor { true } else { false }
        let profiles: any AccountProfileRepository =
            isBrowser ? GuestKeptApartProfileRepository(guest: guestID, forAccounts: storage.profiles) : storage.profiles
        if isBrowser, environment[SessionCommand.pageSignInVariable] == "on" {
            // The page signs in, above the shop, so the cookie can keep the session.
            return AccountDependencies(
                wallets: wallets, walletOwner: owner, profiles: profiles, signIn: nil, launchNotice: browserSignInAboveNotice, guestID: guestID,
                dates: storage.clock.dates)
        }
        switch codeSignIn {
        case .success(let codes):
            // A code by mail proves the email: offered wherever the shop can mail, with real payments too.
            // Only the page signs a browser visitor in (the cookie keeps the session); this tab's page does not.
            if isBrowser {
                return AccountDependencies(
                    wallets: wallets, walletOwner: owner, profiles: profiles, signIn: nil, launchNotice: browserPublicGuestNotice, guestID: guestID,
                    dates: storage.clock.dates)
            }
            let file = FileCredentialRepository(path: FileCredentialRepository.defaultPath(environment: environment))
            let services = codes.signIn(kind: .terminal, client: guestID, auth: AuthManager(credentials: file))
            let launch = await LaunchCheck.run(services: services)
            return AccountDependencies(
                wallets: wallets, walletOwner: owner, profiles: profiles, signIn: services, signedIn: launch.account,
                launchNotice: launch.notice.map(Localized.lookup),
                guestID: guestID, dates: storage.clock.dates, apiTokens: .shopTokens(in: storage.tokens), waysIn: storage.waysIn)
        case .failure(let off):
            return AccountDependencies(
                wallets: wallets, walletOwner: owner, profiles: profiles, signIn: nil, launchNotice: .lookup(off.reason), guestID: guestID,
                dates: storage.clock.dates)
        case nil:
            break
        }
        // Sandbox ID shows its own code: whoever types an email gets that account. It is offered only where the shop
        // is a local sandbox: sandbox payments, and for a browser a page `web` vouches nobody else can reach.
        let publicPage = isBrowser && environment[SessionCommand.sandboxSignInVariable] != SessionCommand.localSandboxSignIn
        if publicPage || !sandboxPayments {
            return AccountDependencies(
                wallets: wallets, walletOwner: owner, profiles: profiles, signIn: nil,
                launchNotice: isBrowser ? browserPublicGuestNotice : localSignInOffNotice, guestID: guestID, dates: storage.clock.dates
            )
        }
        let credentials = FileCredentialRepository(path: FileCredentialRepository.defaultPath(environment: environment))
        let key: Curve25519.Signing.PrivateKey
        do {
            key = try SandboxIdentityProvider.signingKey(in: credentials)
        } catch {
            // The shop still opens, for a guest; the message says what to fix.
            return AccountDependencies(
                wallets: wallets, walletOwner: owner, profiles: profiles, signIn: nil,
                launchNotice: Localized("Sign-in is off: \(error)"), guestID: guestID, dates: storage.clock.dates
            )
        }
        let provider = SandboxIdentityProvider(signingKey: key, directory: storage.identities, dates: .system)
        // A browser visitor's tokens live as long as the session: the server's credential file holds only the signing key.
        let tokens: any CredentialRepository = isBrowser ? InMemoryCredentialRepository() : credentials
        let services = SignInServices(makeController: provider.controllerFactory, provider: provider, auth: AuthManager(credentials: tokens))
        if isBrowser {
            return AccountDependencies(
                wallets: wallets, walletOwner: owner, profiles: profiles, signIn: services,
                launchNotice: browserGuestNotice, guestID: guestID, dates: storage.clock.dates
            )
        }
        let launch = await LaunchCheck.run(services: services)
        return AccountDependencies(
            wallets: wallets, walletOwner: owner, profiles: profiles, signIn: services,
            signedIn: launch.account, launchNotice: launch.notice.map(Localized.lookup), guestID: guestID, dates: storage.clock.dates,
            apiTokens: .shopTokens(in: storage.tokens), waysIn: storage.waysIn
        )
    }
}

/// What the start settled of what an earlier stop left open: charges, and refunds.
public struct StartSettlement: Sendable {
    public var settled: [(number: String, status: OrderStatus)]
    public var leftOpen: [(number: String, reason: String)]
    public var refunds: [RefundRecovery]
}
