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
}

/// What the order history answered the orders screen with.
public enum OrdersAnswer: Equatable, Sendable {
    case loaded(request: Int, total: Int, start: Int, rows: [Order])
    case failed(request: Int, StorageError)
}

/// Past orders, newest first, a window at a time; Enter opens one.
@MainActor
enum OrdersFeature {
    static func open(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        state.orders.selectedIndex = 0
        state.orders.windowStart = 0
        state.show(.orders)
        return reload(&state, env)
    }

    /// Re-reads the count and the visible window of the customer's orders, replacing a read still pending.
    static func reload(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        state.ordersRequest &+= 1
        state.orders.isLoading = true
        let request = state.ordersRequest
        let history = env.dependencies.orderHistory
        let customer = state.customerID
        let (selected, current, capacity) = (state.orders.selectedIndex, state.orders.windowStart, state.listRowCapacity)
        return .run(id: .orders) { send in
            do {
                let total = try await history.count(customer: customer)
                let start = ListSelection.windowStart(selected: ListSelection.clamped(selected, count: total), currentStart: current, capacity: capacity, total: total)
                let rows = try await history.orders(customer: customer, offset: start, limit: capacity)
                send(.orders(.loaded(request: request, total: total, start: start, rows: rows)))
            } catch {
                send(.orders(.failed(request: request, StorageError(describing: error))))
            }
        }
    }

    static func reduce(_ state: inout AppState, _ answer: OrdersAnswer) -> Effect {
        switch answer {
        case .loaded(let request, let total, let start, let rows):
            guard request == state.ordersRequest else { return .none }
            state.orders.isLoading = false
            state.orders.totalCount = total
            state.orders.selectedIndex = ListSelection.clamped(state.orders.selectedIndex, count: total)
            state.orders.windowStart = start
            state.orders.rows = rows
        case .failed(let request, let error):
            guard request == state.ordersRequest else { return .none }
            state.orders.isLoading = false
            state.notice = Notice(.error, "Could not read your orders: \(error)")
        }
        return .none
    }

    static func reduce(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if let moved = ListSelection.moved(state.orders.selectedIndex, by: action, count: state.orders.totalCount, page: state.listRowCapacity) {
            state.orders.selectedIndex = moved
            let start = ListSelection.windowStart(selected: moved, currentStart: state.orders.windowStart, capacity: state.listRowCapacity, total: state.orders.totalCount)
            // A move inside the rows on screen needs nothing read.
            return start == state.orders.windowStart && !state.orders.isLoading ? .none : reload(&state, env)
        }
        switch action {
        case .confirm:
            if let order = state.orders.rows[safe: state.orders.selectedIndex - state.orders.windowStart] {
                state.orderDetail = order
                state.route.append(.orderDetail)
            }
        case .back:
            state.popScreen()
            return .cancel(.orders)
        default: break
        }
        return .none
    }

    /// One order's page: Enter or Esc goes back to the list.
    static func reduceDetail(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if action == .back || action == .confirm { state.popScreen() }
        return .none
    }
}
