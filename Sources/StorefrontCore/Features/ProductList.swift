import StoreModels

/// The visible window of the product list, plus the total count; never the whole catalog.
public struct ProductListState: Equatable, Sendable {
    /// The longest query kept, in characters: the search field is about this wide, and a search's cost grows with it.
    public static let queryLimit = 60

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

/// Products read around the list's window: the window's rows come from here while they are inside it.
public struct ProductsAround: Equatable, Sendable {
    /// Windows read beyond each edge of the visible one: a scroll asks the catalog once per this many windows.
    static let margin = 2
    var query = ""
    var start = 0
    var rows: [Product] = []

    /// A cache, equal whatever it holds: comparing states compares what the shop shows, not what it read ahead.
    public static func == (lhs: ProductsAround, rhs: ProductsAround) -> Bool { true }

    /// The rows `start..<end` of the matches for `query`, when all of them were read.
    func rows(_ start: Int, _ end: Int, query: String) -> [Product]? {
        guard query == self.query, start >= self.start, end <= self.start + rows.count, start <= end else { return nil }
        return Array(rows[(start - self.start)..<(end - self.start)])
    }
}

/// The product list: browsing, paging and searching the catalog a window at a time.
@MainActor
enum ProductListFeature {
    static func reduce(_ state: inout AppState, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if state.productList.isEditingQuery {
            switch action {
            case .textInput(let text):
                // What is typed past the limit is dropped, so no key costs more than a search of the longest query.
                let room = ProductListState.queryLimit - state.productList.query.count
                guard room > 0 else { return .none }
                state.productList.query += text.prefix(room)
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
        if start != list.windowStart { loadWindow(&state, start: start, fresh: false, env) }
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
            loadWindow(&state, start: start, fresh: true, env)
        } catch {
            StoreOutageFeature.report(&state, error) { "Could not read the catalog: \($0)" }
        }
    }

    /// Shows the window from `start`: from the rows read around the last one when it lies inside them
    /// (a scroll), else read afresh with `margin` windows either side (`fresh`: a reload, whose rows must be new).
    private static func loadWindow(_ state: inout AppState, start: Int, fresh: Bool, _ env: ShopEnvironment) {
        let query = state.productList.query
        let capacity = state.listRowCapacity
        let end = min(start + capacity, state.productList.totalCount)
        do {
            if !fresh, let rows = state.productsAround.rows(start, end, query: query) {
                state.productList.rows = rows
            } else {
                let from = max(0, start - ProductsAround.margin * capacity)
                let read = try env.dependencies.catalog.page(matching: query, offset: from, limit: (2 * ProductsAround.margin + 1) * capacity)
                state.productsAround = ProductsAround(query: query, start: from, rows: read)
                let first = min(read.count, start - from)
                state.productList.rows = Array(read[first..<min(read.count, first + capacity)])
            }
            state.productList.windowStart = start
        } catch {
            StoreOutageFeature.report(&state, error) { "Could not read the catalog: \($0)" }
        }
    }
}
