import ShopModels
import ShopPorts

/// The visible window of past orders, newest first.
public struct OrderListState: Equatable, Sendable {
    public var totalCount = 0
    public var windowStart = 0
    public var rows: [Order] = []
    public var selectedIndex = 0
    /// The count or the window is being read; the rows on screen stay until it answers.
    public var isLoading = false

    public init() {}
}

/// The orders screens' actions: their keys, and what the order history answered.
public enum OrdersAction: KeyedFeatureAction {
    case key(Action)
    case loaded(request: Int, total: Int, start: Int, rows: [Order])
    case failed(request: Int, StorageError)
    /// The history of the order opened, or why it could not be read.
    case history(order: String, Result<[OrderEvent], StorageError>)
    /// The opened order's messages to its shopper, as the outbox holds them.
    case messages(order: String, [OutboxEntry])
    /// The shopper's cancel of an order was made, or why not.
    case canceled(order: String, Result<Order, BackOfficeError>)

    public init?(_ action: AppAction) {
        guard case .orders(let action) = action else { return nil }
        self = action
    }
}

/// Past orders, newest first, a window at a time; Enter opens one.
@MainActor
public enum OrdersFeature {
    /// What the orders screens own: the list, the opened order with its history and messages, and a cancel.
    public struct Owned: Equatable, Sendable {
        public var list = OrderListState()
        public var detail: Order?
        /// The opened order's history, oldest first; empty until it is read.
        public var events: [OrderEvent] = []
        /// The opened order's messages to its shopper (the receipt first), as the outbox holds them.
        public var messages: [OutboxEntry] = []
        /// The shopper's cancel of the opened order, while it is asked and made.
        public var cancel: OrderCancelStep?
        /// The latest read; answers to older ones are dropped.
        public var request = 0

        public init() {}
    }

    typealias State = Scoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<Scoped<Owned>, OrdersAction> { FeatureReducer(body: reduce) }

    static func open(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        state.list.selectedIndex = 0
        state.list.windowStart = 0
        state.shell.show(.orders)
        return reload(&state, env)
    }

    /// Re-reads the count and the visible window of the customer's orders, replacing a read still pending.
    static func reload(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        state.request &+= 1
        state.list.isLoading = true
        let request = state.request
        let history = env.dependencies.orderHistory
        let customer = state.customerID
        let (selected, current, capacity) = (state.list.selectedIndex, state.list.windowStart, state.rowCapacity)
        return .run(id: .orders) { send in
            do {
                let total = try await history.count(customer: customer)
                let start = ListSelection.windowStart(
                    selected: ListSelection.clamped(selected, count: total), currentStart: current, capacity: capacity, total: total)
                let rows = try await history.orders(customer: customer, offset: start, limit: capacity)
                send(.orders(.loaded(request: request, total: total, start: start, rows: rows)))
            } catch {
                send(.orders(.failed(request: request, StorageError(describing: error))))
            }
        }
    }

    static func reduce(_ state: inout State, _ action: OrdersAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .key(let key) where state.shell.screen == .orderDetail: return DetailAction(key).map { reduceDetail(&state, $0, env) } ?? .none
        case .key(let key): return ListAction(key).map { reduce(&state, $0, env) } ?? .none
        case .canceled(let number, let result):
            state.cancel = nil
            switch result {
            case .success(let order):
                if state.detail?.number == number { state.detail = order }
                // The list behind shows the order as it is now; nothing else in it changed.
                state.list.rows = state.list.rows.map { $0.number == number ? order : $0 }
                state.shell.notice = Notice(.info, "Order \(number) is canceled. The refund goes back to \(order.paymentDescription).")
            case .failure(let error):
                state.shell.notice = Notice(.error, "Order \(number) was not canceled: \(error)")
            }
            return readHistory(of: number, env)
        case .messages(let number, let entries):
            guard state.detail?.number == number else { return .none }
            state.messages = entries
        case .history(let number, let read):
            guard state.detail?.number == number else { return .none }
            switch read {
            case .success(let events): state.events = events
            case .failure(let error): state.shell.notice = Notice(.error, "Could not read the order's history: \(error)")
            }
        case .loaded(let request, let total, let start, let rows):
            guard request == state.request else { return .none }
            state.list.isLoading = false
            state.list.totalCount = total
            state.list.selectedIndex = ListSelection.clamped(state.list.selectedIndex, count: total)
            state.list.windowStart = start
            state.list.rows = rows
        case .failed(let request, let error):
            guard request == state.request else { return .none }
            state.list.isLoading = false
            state.shell.notice = Notice(.error, "Could not read your orders: \(error)")
        }
        return .none
    }

    /// The keys the orders list takes.
    enum ListAction: FeatureKeys {
        case move(ListMove)
        case open, back

        static let keys: [StorefrontCore.Action: Self] = ListMove.keys.mapValues(Self.move).merging([.confirm: .open, .back: .back]) { $1 }
    }

    /// The keys an order's page takes.
    enum DetailAction: FeatureKeys {
        case confirm, back, cancelOrder

        static let keys: [StorefrontCore.Action: Self] = [.confirm: .confirm, .back: .back, .cancelOrder: .cancelOrder]
    }

    static func reduce(_ state: inout State, _ action: ListAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .move(let move):
            let moved = ListSelection.moved(state.list.selectedIndex, by: move, count: state.list.totalCount, page: state.rowCapacity)
            state.list.selectedIndex = moved
            let start = ListSelection.windowStart(
                selected: moved, currentStart: state.list.windowStart, capacity: state.rowCapacity, total: state.list.totalCount)
            // A move inside the rows on screen needs nothing read.
            return start == state.list.windowStart && !state.list.isLoading ? .none : reload(&state, env)
        case .open:
            if let order = state.list.rows[safe: state.list.selectedIndex - state.list.windowStart] {
                state.detail = order
                state.events = []
                state.messages = []
                state.shell.push(.orderDetail)
                return readHistory(of: order.number, env)
            }
        case .back:
            state.shell.popScreen()
            return .cancel(.orders)
        }
        return .none
    }

    /// One order's page: Enter or Esc goes back to the list; x asks to cancel the order, and Enter then cancels it.
    static func reduceDetail(_ state: inout State, _ action: DetailAction, _ env: ShopEnvironment) -> Effect {
        switch (state.cancel, action) {
        case (.canceling?, _):
            return .none
        case (.confirming?, .confirm):
            guard let order = state.detail, let office = env.dependencies.backOffice else { return .none }
            state.cancel = .canceling
            let (number, status, actor) = (order.number, order.status, OrderActor.shopper(state.customerID))
            return .run(id: .orderCancel) { send in
                do throws(BackOfficeError) {
                    send(
                        .orders(
                            .canceled(
                                order: number,
                                .success(try await office.cancel(number, reason: "canceled by the shopper", by: actor, expecting: status)))))
                } catch {
                    send(.orders(.canceled(order: number, .failure(error))))
                }
            }
        case (.confirming?, .back):
            state.cancel = nil
            state.shell.notice = Notice(.info, "Your order stays as it is.")
        case (nil, .cancelOrder):
            guard env.dependencies.backOffice != nil, let order = state.detail, StorefrontState.isCancelableByItsShopper(order, events: state.events)
            else { return .none }
            state.cancel = .confirming
        case (nil, .back), (nil, .confirm):
            state.shell.popScreen()
        case (.confirming?, .cancelOrder):
            break
        }
        return .none
    }

    /// Reads the opened order's history; a late answer for another order is dropped.
    private static func readHistory(of number: String, _ env: ShopEnvironment) -> Effect {
        let (history, mail) = (env.dependencies.orderHistory, env.dependencies.mail)
        return .run(id: .orders) { send in
            do {
                send(.orders(.history(order: number, .success(try await history.events(orderNumber: number)))))
            } catch {
                send(.orders(.history(order: number, .failure(StorageError(describing: error)))))
            }
            // The mail's state is a courtesy: an outbox that cannot be read leaves the line out.
            if let mail, let entries = try? await mail.entries(orderNumber: number) { send(.orders(.messages(order: number, entries))) }
        }
    }
}
