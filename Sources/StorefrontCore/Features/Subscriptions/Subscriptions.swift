import Foundation
import ShopLanguages
import ShopModels
import ShopPorts

/// One of the shopper's subscriptions as their screen shows it: the subscription, what it delivers and what each
/// delivery's goods cost today, and the intervals its product is sold at.
public struct SubscriptionRow: Equatable, Sendable {
    public var subscription: Subscription {
        didSet { standing = subscription.standingWords }
    }
    /// Where it stands, in words: made when the row is read or changed rather than at every frame that draws it.
    public private(set) var standing: Localized
    /// "Compile-Time Coffee — Whole bean, 250 g"; the product's id when it is no longer sold.
    public var name: String
    /// A delivery's goods (price × quantity) at today's price; nil when the product or its choice is no longer sold.
    public var goods: Money?
    public var offered: [Int]

    public init(subscription: Subscription, name: String, goods: Money?, offered: [Int]) {
        self.subscription = subscription
        self.standing = subscription.standingWords
        self.name = name
        self.goods = goods
        self.offered = offered
    }
}

/// The changes Enter offers for one subscription, and the one under the cursor.
public struct SubscriptionMenu: Equatable, Sendable {
    public struct Option: Equatable, Sendable {
        public var title: Localized
        public var change: SubscriptionChange?
        /// Pay the missed renewal now, on the payment sheet (a past-due subscription).
        public var paysNow = false
    }
    public var subscriptionID: String
    public var options: [Option]
    public var selectedIndex = 0
}

/// The shopper's subscriptions screen.
public struct SubscriptionListState: Equatable, Sendable {
    public var rows: [SubscriptionRow] = []
    public var selectedIndex = 0
    public var isLoading = false
    /// Enter opened the changes of the selected subscription.
    public var menu: SubscriptionMenu?
    /// A change is being written: keys wait.
    public var isChanging = false

    public init() {}

    public var selected: SubscriptionRow? { rows.indices.contains(selectedIndex) ? rows[selectedIndex] : nil }
}

/// The subscriptions screen's actions: its keys, its opening, its effects' answers, and what it asks of the others.
public enum SubscriptionsAction: KeyedFeatureAction {
    case key(Action)
    case open
    case loaded(Result<[SubscriptionRow], StorageError>)
    /// A change was made (the subscription as it is now), or why not.
    case changed(Result<Subscription, SubscriptionChangeRefusal>)
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
        /// A new card for a subscription: put `order` on the payment sheet.
        case beginCheckout(CheckoutOrder)
    }

    public init?(_ action: AppAction) {
        guard case .subscriptions(let action) = action else { return nil }
        self = action
    }
}

/// The shopper's subscriptions: each with its next date, price, card and address; Enter offers the changes a
/// subscriber can make (skip, pause, resume, interval, address, card, cancel), written through the same store
/// operation as the API's.
@MainActor
public enum SubscriptionsFeature {
    public struct Owned: Equatable, Sendable {
        public var list = SubscriptionListState()

        public init() {}
    }

    typealias State = Scoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<Scoped<Owned>, SubscriptionsAction> { FeatureReducer(body: reduce) }

    /// The keys the subscriptions screen takes.
    enum Action: FeatureKeys {
        case move(ListMove)
        case confirm, back

        static let keys: [StorefrontCore.Action: Self] = ListMove.keys.mapValues(Self.move).merging([.confirm: .confirm, .back: .back]) { $1 }
    }

    /// Opens the screen and reads the customer's subscriptions.
    static func open(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard state.customer.signedIn != nil else {
            state.shell.notice = Notice(.error, "Subscriptions are kept on an account: sign in first (i).")
            return .none
        }
        state.list.menu = nil
        state.shell.show(.subscriptions)
        return reload(&state, env)
    }

    static func reload(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let subscriptions = env.dependencies.subscriptions else {
            state.list.rows = []
            return .none
        }
        state.list.isLoading = true
        let (catalog, customer) = (env.dependencies.catalog, state.customerID)
        return .run { send in
            do {
                var rows: [SubscriptionRow] = []
                for subscription in try await subscriptions.store.subscriptions(customer: customer) {
                    let product = try await catalog.product(id: subscription.productID)
                    let offer = product.flatMap(subscription.offer(in:))
                    let name =
                        product.map { product in offer?.variant.map { CartLine.name(product.name, $0.title) } ?? product.name }
                        ?? subscription.productID.rawValue
                    // The next delivery's price is the one the subscriber was told: a new catalog price comes a period later.
                    let goods = offer.map { subscription.chargedPrice(catalogPrice: $0.price) }.map {
                        Money(minorUnits: $0.minorUnits * Int64(subscription.quantity), currency: $0.currency)
                    }
                    rows.append(SubscriptionRow(subscription: subscription, name: name, goods: goods, offered: product?.subscriptionWeeks ?? []))
                }
                send(.subscriptions(.loaded(.success(rows))))
            } catch {
                send(.subscriptions(.loaded(.failure(StorageError("Your subscriptions could not be read: \(error)")))))
            }
        }
    }

    static func reduce(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard !state.list.isChanging else { return .none }
        if var menu = state.list.menu {
            switch action {
            case .move(let move):
                menu.selectedIndex = ListSelection.moved(menu.selectedIndex, by: move, count: menu.options.count, page: state.rowCapacity)
                state.list.menu = menu
            case .back:
                state.list.menu = nil
            case .confirm:
                state.list.menu = nil
                guard let option = menu.options[safe: menu.selectedIndex] else { return .none }
                if option.paysNow { return payNow(&state, menu.subscriptionID, env) }
                return option.change.map { change(&state, menu.subscriptionID, $0, env) } ?? .none
            }
            return .none
        }
        switch action {
        case .move(let move):
            state.list.selectedIndex = ListSelection.moved(state.list.selectedIndex, by: move, count: state.list.rows.count, page: state.rowCapacity)
        case .back:
            state.shell.popScreen()
        case .confirm:
            guard let row = state.list.selected else { return .none }
            let options = menuOptions(for: row, wallet: state.customer.wallet)
            guard !options.isEmpty else {
                state.shell.notice = Notice(.info, "This subscription is canceled: nothing more can change.")
                return .none
            }
            state.list.menu = SubscriptionMenu(subscriptionID: row.subscription.id, options: options)
        }
        return .none
    }

    /// What the subscriber can do with `row` as it stands: skip or keep the next delivery, pause or resume, another
    /// interval, another saved address or card, stop or restart the reminders, cancel at the period's end or now.
    static func menuOptions(for row: SubscriptionRow, wallet: WalletContents) -> [SubscriptionMenu.Option] {
        let s = row.subscription
        guard s.status != .canceled else { return [] }
        var options: [SubscriptionMenu.Option] = []
        if s.status == .pastDue, row.goods != nil {
            options.append(.init(title: Localized("Pay the missed delivery now"), change: nil, paysNow: true))
        }
        if s.status == .active, !s.endsAtPeriodEnd {
            options.append(
                s.skipsNext
                    ? .init(title: Localized("Keep the next delivery"), change: .keepNext)
                    : .init(title: Localized("Skip the next delivery"), change: .skipNext))
        }
        if s.status == .paused || s.endsAtPeriodEnd {
            options.append(.init(title: s.status == .paused ? "Resume" : "Keep it (do not end)", change: .resume))
        }
        if s.status != .paused { options.append(.init(title: Localized("Pause"), change: .pause)) }
        options += row.offered.filter { $0 != s.intervalWeeks }.map {
            .init(title: Localized("Every \(RenewalSchedule.everyWords($0))"), change: .interval(weeks: $0))
        }
        options += wallet.addresses.filter { $0.shipToLine != s.shipTo.shipToLine }.map {
            .init(title: Localized("Ship to \($0.shipToLine)"), change: .shipTo($0))
        }
        options += wallet.cards.filter { $0.id != s.cardID }.map {
            .init(title: Localized("Charge \($0.shortName)  \($0.displayName)"), change: .card(id: $0.id, description: $0.shortName))
        }
        options.append(
            s.remindersStopped == nil
                ? .init(title: Localized("Stop the reminders before renewals"), change: .reminders(on: false))
                : .init(title: Localized("Remind me before renewals"), change: .reminders(on: true)))
        if !s.endsAtPeriodEnd { options.append(.init(title: Localized("Cancel at the end of the period"), change: .cancelAtPeriodEnd)) }
        options.append(.init(title: Localized("Cancel now"), change: .cancelNow))
        return options
    }

    /// How long the worker leaves a missed renewal to the subscriber paying it on the sheet.
    static let payingHold: TimeInterval = 30 * 60

    /// The payment sheet for the missed renewal of subscription `id`: its delivery as the catalog has it now, paid on
    /// the sheet, where the bank can check it; once paid, the subscription is active again on the card paid with.
    private static func payNow(_ state: inout State, _ id: String, _ env: ShopEnvironment) -> Effect {
        guard let s = state.list.rows.first(where: { $0.subscription.id == id })?.subscription, let subscriptions = env.dependencies.subscriptions
        else { return .none }
        let (catalog, customer) = (env.dependencies.catalog, state.customerID)
        return .run { send in
            // The worker's next try waits while the subscriber pays: the period is charged once, here or there.
            let holding = SubscriptionChange.payingMissed(until: subscriptions.dates.now().addingTimeInterval(Self.payingHold))
            let held: Result<Subscription, SubscriptionChangeRefusal>
            do {
                held = try await subscriptions.store.change(s.id, holding, by: "shopper:\(customer)", owner: customer, at: subscriptions.dates.now())
            } catch {
                held = .failure(SubscriptionChangeRefusal("The payment could not be begun: \(error)"))
            }
            if case .failure = held {
                send(.subscriptions(.changed(held)))
                return
            }
            guard let product = (try? await catalog.product(id: s.productID)) ?? nil, let offer = s.offer(in: product) else {
                send(.subscriptions(.changed(.failure(SubscriptionChangeRefusal("\(s.productID) is no longer sold: cancel the subscription.")))))
                return
            }
            let line = CartLine(product: product, variant: offer.variant, quantity: s.quantity)
            let order = CheckoutOrder(lines: [line], clearsCartOnSuccess: false, renews: MissedRenewal(subscriptionID: s.id, period: s.period))
            send(.subscriptions(.delegate(.beginCheckout(order))))
        }
    }

    /// Writes `change` to subscription `id` as this customer, through the store's one change operation.
    private static func change(_ state: inout State, _ id: String, _ change: SubscriptionChange, _ env: ShopEnvironment) -> Effect {
        guard let subscriptions = env.dependencies.subscriptions, let row = state.list.rows.first(where: { $0.subscription.id == id }) else {
            return .none
        }
        // Where the shop does not ship, a move is refused with the regions' line, not found out by a renewal that fails.
        if case .shipTo(let contact) = change, let refusal = row.subscription.shipToRefusal(contact, shop: env.shopProfile) {
            state.shell.notice = Notice(.error, .lookup(refusal.line))
            return .none
        }
        state.list.isChanging = true
        let (customer, offered) = (state.customerID, row.offered)
        return .run { send in
            let answer: Result<Subscription, SubscriptionChangeRefusal>
            do {
                answer = try await subscriptions.store.change(
                    id, change, offered: offered, by: "shopper:\(customer)", owner: customer, at: subscriptions.dates.now())
            } catch {
                answer = .failure(SubscriptionChangeRefusal("The change was not saved: \(error)"))
            }
            send(.subscriptions(.changed(answer)))
        }
    }

    static func reduce(_ state: inout State, _ action: SubscriptionsAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .key(let key): return Action(key).map { reduce(&state, $0, env) } ?? .none
        case .open: return open(&state, env)
        case .delegate: return .none
        case .loaded(.success(let rows)):
            state.list.isLoading = false
            state.list.rows = rows
            state.list.selectedIndex = min(state.list.selectedIndex, max(rows.count - 1, 0))
        case .loaded(.failure(let error)):
            state.list.isLoading = false
            state.shell.notice = Notice(.error, .lookup(error.message))
        case .changed(.success(let subscription)):
            state.list.isChanging = false
            if let index = state.list.rows.firstIndex(where: { $0.subscription.id == subscription.id }) {
                state.list.rows[index].subscription = subscription
            }
            state.shell.notice = Notice(.info, Localized("Saved. \(subscription.standingWords)"))
        case .changed(.failure(let refusal)):
            state.list.isChanging = false
            state.shell.notice = Notice(.error, .lookup(refusal.line))
            return reload(&state, env)
        }
        return .none
    }
}
