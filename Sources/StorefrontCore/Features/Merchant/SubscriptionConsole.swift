import Foundation
import ShopModels
import ShopPorts

/// The console's subscriptions: those in one state (Tab), the renewals of the next 30 days and their goods, and the
/// one chosen.
public struct MerchantSubscriptionsState: Equatable, Sendable {
    /// The states Tab steps through; nil is every subscription.
    public static let filters: [SubscriptionStatus?] = [.active, .pastDue, .paused, .canceled, nil]
    /// How far ahead the renewals to come are summed.
    public static let upcomingDays = 30

    public var filter: SubscriptionStatus? = .active
    public var rows: [Subscription] = []
    public var selectedIndex = 0
    public var isLoading = false
    /// The renewals of the next `upcomingDays` days, and their goods summed per currency.
    public var upcomingCount = 0
    public var upcomingGoods: [Money] = []

    public init() {}

    public var selected: Subscription? { rows[safe: selectedIndex] }

    /// "active", "past due", "paused", "canceled".
    public static func title(_ status: SubscriptionStatus) -> String { status.rawValue.replacingOccurrences(of: "_", with: " ") }
}

/// What the console reads of the subscriptions.
public struct SubscriptionsRead: Equatable, Sendable {
    public var rows: [Subscription]
    public var upcoming: [UpcomingRenewal]
}

/// The console's subscriptions (`6`): Tab steps through their states, `x` cancels the chosen one at the end of its
/// period (its subscriber is told), through the same store operation as `storefront subscriptions cancel`.
extension MerchantFeature {
    static func showSubscriptions(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        state.shell.route = [.merchantQueue, .merchantSubscriptions]
        return reloadSubscriptions(&state, env)
    }

    static func reloadSubscriptions(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let subscriptions = env.dependencies.subscriptions else {
            state.shell.notice = Notice(.error, "This console keeps no subscriptions.")
            return .none
        }
        state.console.subscriptions.isLoading = true
        let (filter, catalog) = (state.console.subscriptions.filter, env.dependencies.catalog)
        return .run(id: .merchantSubscriptions) { send in
            do {
                let rows = try await subscriptions.store.subscriptions(status: filter, limit: 500)
                let upcoming = try await subscriptions.store.upcomingRenewals(
                    catalog: catalog, from: subscriptions.dates.now(), days: MerchantSubscriptionsState.upcomingDays)
                send(.merchant(.subscriptions(.success(SubscriptionsRead(rows: rows, upcoming: upcoming)))))
            } catch {
                send(.merchant(.subscriptions(.failure(SubscriptionRepositoryError("\(error)")))))
            }
        }
    }

    static func reduceSubscriptions(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        let screen = state.console.subscriptions
        switch action {
        case .move(let move):
            state.console.subscriptions.selectedIndex = ListSelection.moved(
                screen.selectedIndex, by: move, count: screen.rows.count, page: state.rowCapacity)
        case .nextFilter, .previousFilter:
            let all = MerchantSubscriptionsState.filters
            let index = all.firstIndex(of: screen.filter) ?? 0
            state.console.subscriptions.filter = all[(index + (action == .nextFilter ? 1 : all.count - 1)) % all.count]
            state.console.subscriptions.selectedIndex = 0
            return reloadSubscriptions(&state, env)
        case .cancelOrder:
            guard let chosen = screen.selected, let subscriptions = env.dependencies.subscriptions else { return .none }
            let actor = "merchant:\(state.console.merchantName)"
            return .run(id: .merchantChange) { send in
                let answer: Result<Subscription, SubscriptionChangeRefusal>
                do {
                    answer = try await subscriptions.store.change(chosen.id, .cancelAtPeriodEnd, by: actor, at: subscriptions.dates.now())
                } catch {
                    answer = .failure(SubscriptionChangeRefusal("\(error)"))
                }
                send(.merchant(.subscriptionCanceled(answer)))
            }
        case .back:
            return showQueue(&state, env)
        case .confirm, .show, .newProduct, .togglePublished,
            .archive, .newDiscount, .toggleDiscountPaused, .deleteDiscount, .ship, .markDelivered, .refund, .increase, .decrease, .toggleRestock,
            .toggleLowStock, .search, .newNote:
            break
        }
        return .none
    }

    static func subscriptionsRead(_ state: inout State, _ read: Result<SubscriptionsRead, SubscriptionRepositoryError>) {
        state.console.subscriptions.isLoading = false
        switch read {
        case .success(let read):
            state.console.subscriptions.rows = read.rows
            state.console.subscriptions.upcomingCount = read.upcoming.count
            state.console.subscriptions.upcomingGoods = UpcomingRenewal.goodsTotals(read.upcoming)
            state.console.subscriptions.selectedIndex = ListSelection.clamped(state.console.subscriptions.selectedIndex, count: read.rows.count)
        case .failure(let error):
            state.shell.notice = Notice(.error, "Could not read the subscriptions: \(error)")
        }
    }

    static func subscriptionCanceled(_ state: inout State, _ answer: Result<Subscription, SubscriptionChangeRefusal>, _ env: ShopEnvironment)
        -> Effect
    {
        switch answer {
        case .success(let s):
            state.shell.notice = Notice(.info, "\(s.id) ends on \(UTCTime(s.renewsAt).calendarDate) instead of renewing; its subscriber is told.")
        case .failure(let refusal):
            state.shell.notice = Notice(.error, .lookup(refusal.line))
        }
        return reloadSubscriptions(&state, env)
    }
}
