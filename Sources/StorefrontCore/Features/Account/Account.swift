import ShopLanguages
import ShopModels
import ShopPorts

/// The account screen: who is shopping, and the saved cards and addresses.
public struct AccountState: Equatable, Sendable {
    /// The name, the email or the key fingerprint; "Guest" when signed out.
    public var title: Localized = "Guest"
    public var detail: Localized = ""
    public var isSignedIn = false
    /// A guest can sign in (where an identity provider is offered).
    public var canSignIn = false
    /// Sandbox ID accounts can sign out; an SSH key identity cannot.
    public var canSignOut = false
    public var rows: [AccountRow] = []
    public var selectedIndex = 0
    /// One-Tap is ready: a default card on the shop's networks and a default address.
    public var isOneTapReady = false
    /// The signed-in shopper can make API tokens here.
    public var canMakeTokens = false
    /// An account's sessions and tokens can all be ended here (its keys stay).
    public var canSignOutEverywhere = false
    /// The shopper's API tokens that are not revoked, oldest first.
    public var tokens: [APITokenRecord] = []
    /// A token just made: its name and secret, shown once, until the shopper leaves the screen.
    public var newToken: NewAPIToken?

    public init() {}

    public var selectedRow: AccountRow? { rows.indices.contains(selectedIndex) ? rows[selectedIndex] : nil }

    /// The title the account screen gives `account` with `profile`: a name, an email, the kind of account, or "Guest".
    static func title(for account: SignedInAccount?, profile: AccountProfile?) -> Localized {
        switch account?.provider {
        case .sandboxID?: (profile?.name ?? profile?.email).map(Localized.verbatim) ?? Localized("Sandbox ID account")
        case .sshKey?: Localized("SSH key")
        case .account?: (profile?.name ?? profile?.email).map(Localized.verbatim) ?? Localized("Account")
        case nil: Localized("Guest")
        }
    }
}

/// A new API token's name and its secret, which the shop shows once and never keeps.
public struct NewAPIToken: Equatable, Sendable {
    public var name: String
    public var secret: String
}

/// A saved card or address, or an API token, on the account screen.
public struct AccountRow: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case card, address, token, wayIn, session }
    public var kind: Kind
    public var id: String
    public var title: Localized
    public var detail: Localized
    public var isDefault: Bool
}

/// A customer's wallet and profile as read, with what the change before the read had to say.
public struct WalletRead: Equatable, Sendable {
    public var customer: String
    public var wallet: Result<WalletContents, StorageError>
    public var profile: AccountProfile?
    /// The outcome of the wallet change made before this read, if one was.
    public var notice: Notice?
    /// The customer's API tokens that are not revoked; nil where none were read (a guest, no API).
    public var tokens: [APITokenRecord]?
    /// The account's ways in; nil where none were read (a guest).
    public var waysIn: AccountWaysIn?
    public init(
        customer: String, wallet: Result<WalletContents, StorageError>, profile: AccountProfile?, notice: Notice?, tokens: [APITokenRecord]? = nil,
        waysIn: AccountWaysIn? = nil
    ) {
        self.waysIn = waysIn
        self.tokens = tokens
        self.customer = customer
        self.wallet = wallet
        self.profile = profile
        self.notice = notice
    }
}

/// The account screen: who is shopping, their saved cards and addresses, sign-in and sign-out.
@MainActor
public enum AccountFeature {
    /// What the account screen owns: the screen, and who is shopping as the header says it.
    public struct Owned: Equatable, Sendable {
        public var screen = AccountState()
        /// Who is shopping, for the header: a name, an email, a key fingerprint, or "guest".
        public var shopperLabel: Localized = "guest"

        public init() {}
    }

    /// The account reads the wallet, the profile and the tokens into the customer.
    typealias State = CustomerScoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<CustomerScoped<Owned>, AccountAction> { FeatureReducer(body: reduce) }

    /// The keys the account screen takes.
    enum Action: FeatureKeys {
        case move(ListMove)
        case addCard, addAddress, newAPIToken, signOutEverywhere
        /// Enter or d: the selected card or address becomes the default.
        case makeDefault
        /// x: the selected card, address or token goes.
        case remove
        case signInOrOut, back
        /// r: the account's subscriptions.
        case showSubscriptions

        static let keys: [StorefrontCore.Action: Self] = ListMove.keys.mapValues(Self.move).merging([
            .addCard: .addCard, .addAddress: .addAddress, .newAPIToken: .newAPIToken, .signOutEverywhere: .signOutEverywhere, .confirm: .makeDefault,
            .makeDefault: .makeDefault, .removeLine: .remove, .signInOrOut: .signInOrOut, .showSubscriptions: .showSubscriptions, .back: .back,
        ]) { $1 }
    }

    static func reduce(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .move(let move):
            state.screen.selectedIndex = ListSelection.moved(state.screen.selectedIndex, by: move, count: state.screen.rows.count)
        case .addCard: return .send(.account(.delegate(.addCard)))
        case .addAddress: state.shell.presentForm(AddressForm.make(profile: state.profile, env))
        case .newAPIToken:
            guard state.screen.canMakeTokens else {
                state.shell.notice = Notice(.info, "API tokens are for accounts: connect with your SSH key, or sign in.")
                return .none
            }
            state.screen.newToken = nil
            state.shell.presentForm(APITokenForm.make(inBrowserSession: env.dependencies.accounts.apiTokens?.session != nil))
        case .signOutEverywhere: return signOutEverywhere(&state, env)
        case .makeDefault:
            guard let row = state.screen.selectedRow, !row.isDefault, [.card, .address].contains(row.kind) else { return .none }
            return changeWallet(&state, env, success: "\(row.title) is now your default \(row.kind == .card ? "card" : "address").") {
                wallets, customer in
                switch row.kind {
                case .card: try await wallets.setDefaultCard(id: row.id, forCustomer: customer)
                case .address: try await wallets.setDefaultAddress(id: row.id, forCustomer: customer)
                case .token, .wayIn, .session: break
                }
            }
        case .remove:
            guard let row = state.screen.selectedRow else { return .none }
            if row.kind == .token { return APITokenForm.revoke(row, &state, env) }
            if row.kind == .wayIn || row.kind == .session { return removeWayIn(row, &state, env) }
            return changeWallet(&state, env, success: "Removed \(row.title).") { wallets, customer in
                switch row.kind {
                case .card: try await wallets.removeCard(id: row.id, forCustomer: customer)
                case .address: try await wallets.removeAddress(id: row.id, forCustomer: customer)
                case .token, .wayIn, .session: break
                }
            }
        case .signInOrOut:
            if state.screen.canSignIn { return .send(.account(.delegate(.beginSignIn))) }
            if state.screen.canSignOut { return .send(.account(.delegate(.signOut))) }
        case .showSubscriptions: return .send(.account(.delegate(.openSubscriptions)))
        case .back: state.shell.popScreen()
        }
        return .none
    }

    /// Applies one change to the wallet repository, then reads the wallet again; the answer says how the change went.
    private static func changeWallet(
        _ state: inout State, _ env: ShopEnvironment, success: Localized,
        _ change: @escaping @Sendable (any WalletRepository, String) async throws -> Void
    ) -> Effect {
        let accounts = env.dependencies.accounts
        let customer = state.customerID
        return .run(id: .wallet) { send in
            let notice: Notice
            do {
                try await change(accounts.wallets, customer)
                notice = Notice(.info, success)
            } catch {
                notice = Notice(.error, "Your wallet could not be changed: \(error)")
            }
            send(.account(.loaded(await read(accounts, customer, notice: notice))))
        }
    }

    /// Re-reads the customer's wallet and profile; `loaded` shows them wherever they are shown.
    static func reloadWallet(_ state: inout State, _ env: ShopEnvironment, notice: Notice? = nil) -> Effect {
        let accounts = env.dependencies.accounts
        let customer = state.customerID
        return .run(id: .wallet) { send in send(.account(.loaded(await read(accounts, customer, notice: notice)))) }
    }

    static func read(_ accounts: AccountDependencies, _ customer: String, notice: Notice?) async -> WalletRead {
        let wallet: Result<WalletContents, StorageError>
        do {
            wallet = .success(try await accounts.wallets.wallet(forCustomer: customer))
        } catch {
            wallet = .failure(StorageError(describing: error))
        }
        let profile = (try? await accounts.profiles.profile(forCustomer: customer)) ?? nil
        // Only an account has tokens: a guest's customer id is not one a token may act for.
        let tokens = customer == accounts.guestID ? nil : try? await accounts.apiTokens?.repository.tokens(owner: customer).filter { !$0.isRevoked }
        let waysIn = customer == accounts.guestID ? nil : await readWaysIn(accounts, customer)
        return WalletRead(customer: customer, wallet: wallet, profile: profile, notice: notice, tokens: tokens, waysIn: waysIn)
    }

    /// The wallet and profile arrived; the account screen, the cart's Buy now and the product page follow them (`DerivedScreens`).
    static func reduce(_ state: inout State, _ action: AccountAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .key(let key): Action(key).map { reduce(&state, $0, env) } ?? .none
        case .loaded(let read): loaded(&state, read, env)
        case .reloadWallet: reloadWallet(&state, env)
        case .showNewAPIToken(let secret, let name): showNewToken(&state, secret: secret, name: name, env)
        case .delegate: .none
        }
    }

    private static func loaded(_ state: inout State, _ read: WalletRead, _ env: ShopEnvironment) -> Effect {
        guard read.customer == state.customerID else { return .none }
        switch read.wallet {
        case .success(let wallet): state.wallet = wallet
        case .failure(let error): state.shell.notice = Notice(.error, "Your wallet could not be read: \(error)")
        }
        // The language the account chose, at its first read in this session: a later choice (here or in another
        // session) waits for the next session.
        if state.profile?.customerID != read.customer, state.customer.signedIn != nil,
            let chosen = read.profile?.language.flatMap(Language.named), chosen != state.shell.language
        {
            state.shell.language = chosen
        }
        state.profile = read.profile
        if let notice = read.notice { state.shell.notice = notice }
        state.apiTokens = read.tokens ?? []
        state.waysIn = read.waysIn
        return .none
    }

    /// Rebuilds the account screen and the header's shopper label from the account, profile and wallet.
    static func refresh(_ state: inout State, _ env: ShopEnvironment) {
        let accounts = env.dependencies.accounts
        let account = state.signedIn
        let wallet = state.wallet
        var screen = AccountState()
        let profile = state.profile
        screen.title = AccountState.title(for: account, profile: profile)
        switch account?.provider {
        case .sandboxID?:
            screen.detail = Self.detail(email: profile?.name == nil ? nil : profile?.email, Localized("signed in with Sandbox ID"))
            screen.canSignOut = accounts.signIn != nil
        case .account?:
            // A browser tab's account was signed in on the page above the shop, which signs it out too.
            screen.detail = Self.detail(
                email: profile?.name == nil ? nil : profile?.email,
                accounts.signIn.map { Localized("signed in with \($0.name)") } ?? Localized("signed in on this page"))
            screen.canSignOut = accounts.signIn != nil
        case .sshKey?:
            // A key that made its own account may join the one its holder has: sign-in here is "enter its email".
            screen.canSignIn = accounts.signIn != nil
            screen.detail =
                Self.detail(
                    email: account?.userID ?? "",
                    screen.canSignIn ? Localized("Have an account? i: enter its email") : Localized("your key reaches your account"))
        case nil:
            screen.canSignIn = accounts.signIn != nil
            screen.detail =
                screen.canSignIn ? Localized("Sign in to keep your cart, wallet and orders in an account.") : Localized("Shopping as a guest.")
        }
        screen.isSignedIn = account != nil
        screen.canMakeTokens = account != nil && accounts.apiTokens != nil
        screen.tokens = screen.canMakeTokens ? state.apiTokens : []
        screen.canSignOutEverywhere = account != nil && accounts.waysIn != nil
        screen.newToken = state.screen.newToken
        state.shopperLabel =
            account == nil ? Localized("guest") : (account?.provider == .sshKey ? .verbatim(shortFingerprint(account?.userID ?? "")) : screen.title)
        let cards = wallet.cards.map { card in
            AccountRow(
                kind: .card, id: card.id, title: .verbatim(card.shortName), detail: .verbatim(card.displayName),
                isDefault: card.id == wallet.defaultCardID)
        }
        let addresses = wallet.addresses.map { address in
            AccountRow(
                kind: .address, id: address.id, title: .verbatim(address.name), detail: .verbatim(address.address.singleLine),
                isDefault: address.id == wallet.defaultAddressID)
        }
        screen.rows = cards + addresses + screen.tokens.map(APITokenForm.row) + (account == nil ? [] : wayInRows(state.waysIn, current: account))
        screen.selectedIndex = ListSelection.clamped(state.screen.selectedIndex, count: screen.rows.count)
        let defaultCardWorksHere = wallet.defaultCard.map { env.shopProfile.supportedNetworks.contains($0.network) } ?? false
        screen.isOneTapReady = defaultCardWorksHere && wallet.defaultAddress != nil
        state.screen = screen
    }

    /// "max@example.de · signed in with …": who, then how.
    static func detail(email: String?, _ how: Localized) -> Localized {
        email.map { Localized("\($0) · \(how)") } ?? how
    }

    /// "SHA256:abcd…wxyz": enough of a key fingerprint to recognise it in the header.
    static func shortFingerprint(_ fingerprint: String) -> String {
        guard fingerprint.count > 20 else { return fingerprint }
        return String(fingerprint.prefix(14)) + "…" + String(fingerprint.suffix(4))
    }
}
