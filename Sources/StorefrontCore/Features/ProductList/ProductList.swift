import ShopModels
import ShopPorts

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
    /// A count or a page is being read: the rows on screen stay, marked as loading, until it answers.
    public var isLoading = false

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

/// The product list's actions: its keys, the catalog's answers, and what it asks of the others.
public enum ProductListAction: KeyedFeatureAction {
    case key(Action)
    /// The matches for the request's query: how many, and the products read from `from`.
    case counted(request: Int, total: Int, from: Int, rows: [Product])
    /// Products read from `from` for a window the list scrolled to.
    case paged(request: Int, from: Int, rows: [Product])
    case failed(request: Int, StorageError)
    case delegate(Delegate)

    public enum Delegate: Equatable, Sendable {
        /// Open `product`'s page (the product page).
        case openProduct(Product)
        /// Add one of `product` to the cart.
        case addToCart(Product)
    }

    public init?(_ action: AppAction) {
        guard case .productList(let action) = action else { return nil }
        self = action
    }
}

/// The product list: browsing, paging and searching the catalog a window at a time.
///
/// Order of calls for a read: `reload` or a scroll past the rows read → the list is marked loading
/// and its read starts under `EffectID.productList` (replacing any read still pending) → the
/// catalog answers `.counted` or `.paged` → the window is shown; an answer to an older request is dropped.
@MainActor
public enum ProductListFeature {
    /// What the product list owns: its screen, its reads, and whether the first products are still coming.
    public struct Owned: Equatable, Sendable {
        public var list = ProductListState()
        /// The latest read; answers to older ones are dropped.
        public var request = 0
        /// What the list waits for, if anything.
        public var pending: ProductListPending?
        /// Products read around the visible window, so a scroll by a row seldom asks the catalog.
        public var around = ProductsAround()
        /// The first products are on their way: keys typed now are for them, so hosts hold them until they arrive.
        public var isOpening = true
        public init() {}
    }

    typealias State = Scoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<Scoped<Owned>, ProductListAction> { FeatureReducer(body: reduce) }

    /// The keys the product list takes: moves, open, add, search, and while the search is typed, its text.
    enum Action: FeatureKeys {
        case move(ListMove)
        case confirm, back, addToCart, beginSearch
        case type(String)
        case deleteBackward

        static var typing: ((String) -> Self)? { Self.type }

        static let keys: [StorefrontCore.Action: Self] = ListMove.keys.mapValues(Self.move).merging([
            .confirm: .confirm, .back: .back, .addToCart: .addToCart, .beginSearch: .beginSearch, .deleteBackward: .deleteBackward,
        ]) { $1 }
    }

    static func reduce(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if state.list.isEditingQuery {
            switch action {
            case .type(let text):
                // What is typed past the limit is dropped, so no key costs more than a search of the longest query.
                let room = ProductListState.queryLimit - state.list.query.count
                guard room > 0 else { return .none }
                state.list.query += text.prefix(room)
                return reload(&state, env, keepSelection: false)
            case .deleteBackward:
                guard !state.list.query.isEmpty else { return .none }
                state.list.query.removeLast()
                return reload(&state, env, keepSelection: false)
            case .confirm:
                state.list.isEditingQuery = false
                return .none
            case .back:
                state.list.isEditingQuery = false
                state.list.query = ""
                return reload(&state, env, keepSelection: false)
            case .move(.up), .move(.down), .move(.pageUp), .move(.pageDown):
                break
            case .move(.top), .move(.bottom), .addToCart, .beginSearch:
                return .none
            }
        }
        let page = state.rowCapacity
        switch action {
        case .move(.up): return moveSelection(&state, by: -1, env)
        case .move(.down): return moveSelection(&state, by: 1, env)
        case .move(.pageUp): return moveSelection(&state, by: -page, env)
        case .move(.pageDown): return moveSelection(&state, by: page, env)
        case .move(.top): return moveSelection(&state, by: -state.list.totalCount, env)
        case .move(.bottom): return moveSelection(&state, by: state.list.totalCount, env)
        case .confirm:
            if let product = state.list.selectedProduct { return .send(.productList(.delegate(.openProduct(product)))) }
        case .addToCart:
            if let product = state.list.selectedProduct { return .send(.productList(.delegate(.addToCart(product)))) }
        case .beginSearch:
            state.list.isEditingQuery = true
        case .back:
            if !state.list.query.isEmpty {
                state.list.query = ""
                return reload(&state, env, keepSelection: false)
            }
        case .type, .deleteBackward:
            break
        }
        return .none
    }

    /// What the catalog answered; an answer to a request that was superseded is dropped.
    static func reduce(_ state: inout State, _ action: ProductListAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .key(let key): return Action(key).map { reduce(&state, $0, env) } ?? .none
        case .delegate: return .none
        case .counted(let request, let total, let from, let rows):
            guard request == state.request, case .count(let keep) = state.pending else { return .none }
            state.pending = nil
            state.isOpening = false
            state.shell.storageAnswered()
            state.list.totalCount = total
            state.list.selectedIndex = keep ? ListSelection.clamped(state.list.selectedIndex, count: total) : 0
            if !keep { state.list.windowStart = 0 }
            state.around = ProductsAround(query: state.list.query, start: from, rows: rows)
            return showWindow(&state, env)
        case .paged(let request, let from, let rows):
            guard request == state.request else { return .none }
            state.pending = nil
            state.around = ProductsAround(query: state.list.query, start: from, rows: rows)
            return showWindow(&state, env)
        case .failed(let request, let error):
            guard request == state.request else { return .none }
            state.pending = nil
            state.isOpening = false
            state.list.isLoading = false
            state.shell.reportStorageFailure(error) { "Could not read the catalog: \($0)" }
            return .none
        }
    }

    private static func moveSelection(_ state: inout State, by delta: Int, _ env: ShopEnvironment) -> Effect {
        let list = state.list
        guard list.totalCount > 0 else { return .none }
        let target = ListSelection.clamped(list.selectedIndex + delta, count: list.totalCount)
        guard target != list.selectedIndex else { return .none }
        state.list.selectedIndex = target
        // A move inside the window keeps its rows, the very same array, which the painter reuses row by row.
        let start = ListSelection.windowStart(selected: target, currentStart: list.windowStart, capacity: state.rowCapacity, total: list.totalCount)
        // While the matches are being counted, the window waits for the count and follows the selection then; a count
        // that started unmarked (a refresh) is marked once the selection leaves the rows on screen.
        if case .count = state.pending {
            if start != list.windowStart { state.list.isLoading = true }
            return .none
        }
        guard start != list.windowStart else { return .none }
        return showWindow(&state, env)
    }

    /// Re-reads the count and the visible window, e.g. after the query or viewport changed.
    static func reload(_ state: inout State, _ env: ShopEnvironment, keepSelection: Bool) -> Effect {
        read(&state, env, keepSelection: keepSelection, marked: true)
    }

    /// Re-reads the count and the visible window while the rows on screen stay unmarked: a shopper coming back to the
    /// list sees it as it was, and again only where the catalog changed meanwhile (one frame, not two).
    static func refresh(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        read(&state, env, keepSelection: true, marked: state.list.rows.isEmpty)
    }

    private static func read(_ state: inout State, _ env: ShopEnvironment, keepSelection: Bool, marked: Bool) -> Effect {
        let request = startRequest(&state, .count(keepSelection: keepSelection), marked: marked)
        let catalog = env.dependencies.catalog
        let query = state.list.query
        let capacity = state.rowCapacity
        let selected = keepSelection ? state.list.selectedIndex : 0
        let current = keepSelection ? state.list.windowStart : 0
        return .run(id: .productList) { send in
            do {
                let total = try await catalog.count(matching: query)
                let start = ListSelection.windowStart(
                    selected: ListSelection.clamped(selected, count: total), currentStart: current, capacity: capacity, total: total)
                let from = ProductsAround.readStart(for: start, capacity: capacity)
                let rows = try await catalog.page(matching: query, offset: from, limit: ProductsAround.readLimit(capacity: capacity))
                send(.productList(.counted(request: request, total: total, from: from, rows: rows)))
            } catch is CancellationError {
                // A newer read replaced this one (the same effect id): its answer is the one the list waits for.
            } catch {
                send(.productList(.failed(request: request, StorageError(describing: error))))
            }
        }
    }

    /// Shows the window that holds the selection: from the rows read around the last one when it lies
    /// inside them (a scroll), else the list keeps its rows, marked loading, while that window is read.
    private static func showWindow(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        let list = state.list
        let capacity = state.rowCapacity
        let start = ListSelection.windowStart(
            selected: list.selectedIndex, currentStart: list.windowStart, capacity: capacity, total: list.totalCount)
        let end = min(start + capacity, list.totalCount)
        if let rows = state.around.rows(start, end, query: list.query) {
            state.list.rows = rows
            state.list.windowStart = start
            // A read still pending for another window goes on: its rows are kept for the next scroll.
            state.list.isLoading = false
            return .none
        }
        let request = startRequest(&state, .page, marked: true)
        let catalog = env.dependencies.catalog
        let query = list.query
        let from = ProductsAround.readStart(for: start, capacity: capacity)
        return .run(id: .productList) { send in
            do {
                let rows = try await catalog.page(matching: query, offset: from, limit: ProductsAround.readLimit(capacity: capacity))
                send(.productList(.paged(request: request, from: from, rows: rows)))
            } catch is CancellationError {
            } catch {
                send(.productList(.failed(request: request, StorageError(describing: error))))
            }
        }
    }

    /// Starts a new request number, answers to older ones dropped; `marked` shows the list loading until it answers.
    private static func startRequest(_ state: inout State, _ pending: ProductListPending, marked: Bool) -> Int {
        state.request &+= 1
        state.pending = pending
        if marked { state.list.isLoading = true }
        return state.request
    }
}

/// What the product list waits for from the catalog.
public enum ProductListPending: Equatable, Sendable {
    /// The count and first window of the matches; `keepSelection` after a resize or a retry, not after a new query.
    case count(keepSelection: Bool)
    /// The rows around a window the selection moved to.
    case page
}

extension ProductsAround {
    /// Where a read for the window at `start` begins: `margin` windows before it.
    static func readStart(for start: Int, capacity: Int) -> Int { max(0, start - margin * capacity) }
    /// How many products one read asks for: the window and `margin` windows either side.
    static func readLimit(capacity: Int) -> Int { (2 * margin + 1) * capacity }
}
