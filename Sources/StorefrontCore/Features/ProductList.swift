import StoreModels

/// The visible window of the product list, plus the total count; never the whole catalog.
public struct ProductListState: Equatable, Sendable {
    public var query = ""
    public var isEditingQuery = false
    public var totalCount = 0
    /// Index of the first visible row within the matches.
    public var windowStart = 0
    public var rows: [Product] = []
    /// Index of the selected product within the matches.
    public var selectedIndex = 0

    public var selectedProduct: Product? {
        let offset = selectedIndex - windowStart
        return rows.indices.contains(offset) ? rows[offset] : nil
    }
}

/// The product list: browsing, paging and searching the catalog a window at a time.
@MainActor
enum ProductListFeature {
    static func reduce(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if state.productList.isEditingQuery {
            switch action {
            case .textInput(let text):
                state.productList.query += text
                reload(&state, env, keepSelection: false)
                return .none
            case .deleteBackward:
                if !state.productList.query.isEmpty {
                    state.productList.query.removeLast()
                    reload(&state, env, keepSelection: false)
                }
                return .none
            case .confirm:
                state.productList.isEditingQuery = false
                return .none
            case .back:
                state.productList.isEditingQuery = false
                state.productList.query = ""
                reload(&state, env, keepSelection: false)
                return .none
            case .moveUp, .moveDown, .pageUp, .pageDown:
                break
            default:
                return .none
            }
        }
        if let effect = AppReducer.navigation(&state, action, env) { return effect }
        let page = state.listRowCapacity
        switch action {
        case .moveUp: moveSelection(&state, by: -1, env)
        case .moveDown: moveSelection(&state, by: 1, env)
        case .pageUp: moveSelection(&state, by: -page, env)
        case .pageDown: moveSelection(&state, by: page, env)
        case .moveToTop: moveSelection(&state, by: -state.productList.totalCount, env)
        case .moveToBottom: moveSelection(&state, by: state.productList.totalCount, env)
        case .confirm:
            if let product = state.productList.selectedProduct { ProductDetailFeature.open(&state, product, env) }
        case .addToCart:
            if let product = state.productList.selectedProduct { CartFeature.add(&state, product, env) }
        case .beginSearch:
            state.productList.isEditingQuery = true
        case .back:
            if !state.productList.query.isEmpty {
                state.productList.query = ""
                reload(&state, env, keepSelection: false)
            }
        default: break
        }
        return .none
    }

    private static func moveSelection(_ state: inout AppState, by delta: Int, _ env: ShopEnvironment) {
        var list = state.productList
        guard list.totalCount > 0 else { return }
        let target = ListSelection.clamped(list.selectedIndex + delta, count: list.totalCount)
        guard target != list.selectedIndex else { return }
        list.selectedIndex = target
        let start = ListSelection.windowStart(selected: target, currentStart: list.windowStart, capacity: state.listRowCapacity, total: list.totalCount)
        state.productList = list
        if start != list.windowStart { loadWindow(&state, start: start, env) }
    }

    /// Re-reads the count and visible window, e.g. after the query or viewport changed.
    static func reload(_ state: inout AppState, _ env: ShopEnvironment, keepSelection: Bool) {
        let query = state.productList.query
        do {
            let total = try env.dependencies.catalog.count(matching: query)
            state.productList.totalCount = total
            let selected = keepSelection ? ListSelection.clamped(state.productList.selectedIndex, count: total) : 0
            state.productList.selectedIndex = selected
            let start = ListSelection.windowStart(
                selected: selected, currentStart: keepSelection ? state.productList.windowStart : 0, capacity: state.listRowCapacity, total: total
            )
            loadWindow(&state, start: start, env)
        } catch {
            StoreOutageFeature.report(&state, error) { "Could not read the catalog: \($0)" }
        }
    }

    private static func loadWindow(_ state: inout AppState, start: Int, _ env: ShopEnvironment) {
        do {
            state.productList.rows = try env.dependencies.catalog.page(matching: state.productList.query, offset: start, limit: state.listRowCapacity)
            state.productList.windowStart = start
        } catch {
            StoreOutageFeature.report(&state, error) { "Could not read the catalog: \($0)" }
        }
    }
}
