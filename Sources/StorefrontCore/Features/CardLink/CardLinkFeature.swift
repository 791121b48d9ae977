import ShopModels
import ShopPorts

/// The payment service's card page on screen: its link as text and as a QR code, and how it stands.
public struct CardLinkState: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        /// The page is being made.
        case opening
        /// The link is shown; the shop follows the page until the shopper finishes there.
        case waiting
        /// The shopper added a card there; the shop is saving it to the wallet.
        case saving
        /// The page expired or was abandoned: Enter makes a new one.
        case expired
        /// The page could not be made or followed, and why: Enter tries again.
        case failed(String)
    }

    public var url: String?
    public var qrCode: QRCode?
    public var phase: Phase

    public init(url: String?, qrCode: QRCode?, phase: Phase) {
        self.url = url
        self.qrCode = qrCode
        self.phase = phase
    }

    /// Something is on its way (the page, the shopper on it, the card being saved): the spinner turns.
    public var isBusy: Bool { phase == .opening || phase == .waiting || phase == .saving }

    /// The page expired or failed: Enter asks for a new one.
    public var canRenew: Bool {
        switch phase {
        case .expired, .failed: true
        case .opening, .waiting, .saving: false
        }
    }
}

/// The card page's actions: its keys, its opening, what the provider and the wallet answered, and what it asks of the
/// others.
public enum CardLinkAction: KeyedFeatureAction {
    case key(Action)
    /// Make the page and show it.
    case open
    /// The page was made; its link as a QR code, when one could be made.
    case opened(CardSetupLink, QRCode?)
    /// The shopper added this card on the page.
    case completed(PaymentMethod)
    case expired
    /// The card is in the wallet.
    case saved(PaymentMethod)
    case failed(String)
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
        case addedToWallet(WalletEntry)
        case walletEntryCanceled(FormState.Purpose)
    }

    public init?(_ action: AppAction) {
        guard case .cardLink(let action) = action else { return nil }
        self = action
    }
}

/// Adding a card on the payment service's own page: the number never passes through the shop.
///
/// Order of calls: `open` → the provider makes the page (`.opened`) → the shop follows it under
/// `EffectID.cardLink`, at once and then backing off, until `.completed` or `.expired` → the card is saved to the
/// wallet (`.saved`) → the screen closes, and a payment sheet waiting for a card takes it. Esc cancels the
/// following and closes the page at the provider.
@MainActor
public enum CardLinkFeature {
    /// What the card page owns: the link on screen, and the page being followed.
    public struct Owned: Equatable, Sendable {
        public var link: CardLinkState?
        /// The payment service's card page being followed, while its link is on screen.
        public var page: CardSetupLink?

        public init(link: CardLinkState? = nil, page: CardSetupLink? = nil) {
            self.link = link
            self.page = page
        }
    }

    typealias State = Scoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<Scoped<Owned>, CardLinkAction> { FeatureReducer(body: reduce) }

    /// The longest wait between two looks at the page.
    static let slowestFollow: Duration = .seconds(10)

    static func open(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        if state.shell.screen != .cardLink { state.shell.push(.cardLink) }
        return start(&state, env)
    }

    /// The keys the card page's screen takes: leave it, or ask for a new link once one expired or failed.
    enum Action: FeatureKeys {
        case back, confirm

        static let keys: [StorefrontCore.Action: Self] = [.back: .back, .confirm: .confirm]
    }

    static func reduceKey(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .back: return leave(&state, env)
        case .confirm: return state.link?.canRenew == true ? start(&state, env) : .none
        }
    }

    static func reduce(_ state: inout State, _ action: CardLinkAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .key(let key): return Action(key).map { reduceKey(&state, $0, env) } ?? .none
        case .open: return open(&state, env)
        case .delegate: return .none
        // An answer for a page the shopper has left is dropped.
        case .opened where state.link == nil, .completed where state.link == nil, .expired where state.link == nil,
            .saved where state.link == nil, .failed where state.link == nil:
            return .none
        case .opened(let page, let code):
            state.page = page
            state.link = CardLinkState(url: page.url, qrCode: code, phase: .waiting)
            return follow(page, env)
        case .completed(let card):
            state.link?.phase = .saving
            let (wallets, customer, makeDefault) = (env.dependencies.accounts.wallets, state.customerID, state.wallet.cards.isEmpty)
            return .run(id: .cardLink) { send in
                do {
                    try await wallets.addCard(card, forCustomer: customer, makeDefault: makeDefault)
                    send(.cardLink(.saved(card)))
                } catch {
                    send(.cardLink(.failed("The card was added on the card page, but the shop could not save it: \(error)")))
                }
            }
        case .expired:
            state.page = nil
            state.link?.phase = .expired
        case .saved(let card):
            close(&state)
            state.shell.notice = Notice(.info, "Saved \(card.shortName).")
            return .send(.cardLink(.delegate(.addedToWallet(.card(card)))))
        case .failed(let why):
            state.link?.phase = .failed(why)
        }
        return .none
    }

    /// Asks the provider for a new page, replacing any being followed.
    private static func start(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        state.link = CardLinkState(url: nil, qrCode: nil, phase: .opening)
        state.page = nil
        guard let pages = env.dependencies.paymentProvider.hostedCardSetup else {
            state.link?.phase = .failed("The payment service has no card page set up for this shop; its operator can set one up.")
            return .none
        }
        let (customer, codes) = (state.customerID, env.dependencies.qrCodes)
        return .run(id: .cardLink) { send in
            do throws(PaymentProviderError) {
                let page = try await pages.startCardSetup(forCustomer: customer)
                send(.cardLink(.opened(page, codes.qrCode(for: page.url))))
            } catch {
                send(.cardLink(.failed("The card page could not be opened: \(error.cardFormMessage)")))
            }
        }
    }

    /// Looks at the page at once, then after 1 s, 2 s, 4 s… up to `slowestFollow`, until the shopper finishes there.
    /// A look that fails is tried again at the next turn: the page is still there.
    private static func follow(_ page: CardSetupLink, _ env: ShopEnvironment) -> Effect {
        guard let pages = env.dependencies.paymentProvider.hostedCardSetup else { return .none }
        let clock = env.dependencies.clock
        return .run(id: .cardLink) { send in
            var wait = Duration.seconds(1)
            while !Task.isCancelled {
                switch try? await pages.cardSetupState(page) {
                case .completed(let card)?:
                    send(.cardLink(.completed(card)))
                    return
                case .expired?:
                    send(.cardLink(.expired))
                    return
                case .open?, nil:
                    break
                }
                do { try await clock.sleep(for: wait) } catch { return }
                wait = min(wait * 2, slowestFollow)
            }
        }
    }

    /// Esc: the following stops, the page is closed at the provider, and a sheet waiting for a card hears it.
    private static func leave(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        let page = state.page
        close(&state)
        var effect = Effect.cancel(.cardLink)
        if let page, let pages = env.dependencies.paymentProvider.hostedCardSetup {
            effect += .run { _ in await pages.cancelCardSetup(page) }
        }
        return effect + .send(.cardLink(.delegate(.walletEntryCanceled(.addCard))))
    }

    private static func close(_ state: inout State) {
        state.link = nil
        state.page = nil
        if state.shell.screen == .cardLink { state.shell.popScreen() }
    }
}
