import StoreModels

/// The visible window of past orders, newest first.
public struct OrderListState: Equatable, Sendable {
    public var totalCount = 0
    public var windowStart = 0
    public var rows: [Order] = []
    public var selectedIndex = 0
}

/// Past orders, newest first, a window at a time; Enter opens one.
@MainActor
enum OrdersFeature {
    static func open(_ state: inout AppState, _ env: ShopEnvironment) {
        state.orders.selectedIndex = 0
        state.orders.windowStart = 0
        reload(&state, env)
        AppReducer.show(.orders, in: &state)
    }

    /// Re-reads the count and the visible window of the customer's orders.
    static func reload(_ state: inout AppState, _ env: ShopEnvironment) {
        let history = env.dependencies.orderHistory
        do {
            let total = try history.count(customer: state.customerID)
            state.orders.totalCount = total
            state.orders.selectedIndex = ListSelection.clamped(state.orders.selectedIndex, count: total)
            let start = ListSelection.windowStart(
                selected: state.orders.selectedIndex, currentStart: state.orders.windowStart, capacity: state.listRowCapacity, total: total
            )
            state.orders.rows = try history.orders(customer: state.customerID, offset: start, limit: state.listRowCapacity)
            state.orders.windowStart = start
        } catch {
            state.notice = Notice(.error, "Could not read your orders: \(error)")
        }
    }

    static func reduce(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if let effect = AppReducer.navigation(&state, action, env) { return effect }
        if let moved = ListSelection.moved(state.orders.selectedIndex, by: action, count: state.orders.totalCount, page: state.listRowCapacity) {
            state.orders.selectedIndex = moved
            reload(&state, env)
            return .none
        }
        switch action {
        case .confirm:
            if let order = state.orders.rows[safe: state.orders.selectedIndex - state.orders.windowStart] {
                state.orderDetail = order
                state.route.append(.orderDetail)
            }
        case .back: AppReducer.popScreen(&state)
        default: break
        }
        return .none
    }

    /// One order's page: Enter or Esc goes back to the list.
    static func reduceDetail(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if let effect = AppReducer.navigation(&state, action, env) { return effect }
        if action == .back || action == .confirm { AppReducer.popScreen(&state) }
        return .none
    }
}
