import ShopModels
import ShopPorts

/// The merchant console: the order queue by status, one order whole, and the tabs to the stock and the sales.
/// The changes an order takes, and their confirmation, are in `MerchantFeature+Changes`.
@MainActor
public enum MerchantFeature {
    /// What the merchant console owns: its screens.
    public struct Owned: Equatable, Sendable {
        public var console: MerchantConsoleState

        public init(console: MerchantConsoleState) { self.console = console }
    }

    typealias State = Scoped<Owned>

    /// The feature's reducer, for the app's root and for a store of this feature alone.
    public static var reducer: FeatureReducer<Scoped<Owned>, MerchantAction> { FeatureReducer(body: reduce) }

    /// The console opened: the queue's first window is read.
    static func open(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        reloadQueue(&state, env)
    }

    /// Re-reads the queue's count and the window around the selection, replacing a read still pending.
    static func reloadQueue(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let office = env.dependencies.backOffice else { return .none }
        state.console.request &+= 1
        state.console.queue.isLoading = true
        let (request, filter, capacity) = (state.console.request, state.console.filter, state.rowCapacity)
        let queue = state.console.queue
        let start = ListSelection.windowStart(
            selected: queue.selectedIndex, currentStart: queue.windowStart, capacity: capacity, total: max(queue.totalCount, queue.selectedIndex + 1))
        return .run(id: .orders) { send in
            do throws(BackOfficeError) {
                send(.merchant(.queue(request: request, .success(try await office.queue(filter, offset: start, limit: capacity)))))
            } catch {
                send(.merchant(.queue(request: request, .failure(error))))
            }
        }
    }

    /// The keys the console takes, on whichever of its screens.
    enum Action: FeatureKeys {
        case move(ListMove)
        case confirm, back
        /// 1 to 7: the queue, the stock, the sales, the catalog, the discount codes, the subscriptions, the customers.
        case show(Tab)
        /// The catalog's: a new product, publish or unpublish, archive.
        case newProduct, togglePublished, archive
        /// The discount codes': a new code, pause or resume, delete.
        case newDiscount, toggleDiscountPaused, deleteDiscount
        /// The customers': a search, a note on the opened one.
        case search, newNote
        case nextFilter, previousFilter
        case ship, markDelivered, cancelOrder, refund
        case increase, decrease, toggleRestock, toggleLowStock

        static let keys: [StorefrontCore.Action: Self] = ListMove.keys.mapValues(Self.move).merging([
            .confirm: .confirm, .back: .back, .showOrders: .show(.queue), .showStock: .show(.stock), .showSales: .show(.sales),
            .showCatalog: .show(.catalog), .newProduct: .newProduct, .togglePublished: .togglePublished, .archiveProduct: .archive,
            .showDiscounts: .show(.discounts), .showSubscriptions: .show(.subscriptions), .showCustomers: .show(.customers),
            .beginSearch: .search, .newNote: .newNote, .newDiscount: .newDiscount,
            .toggleDiscountPaused: .toggleDiscountPaused, .deleteDiscount: .deleteDiscount, .nextFilter: .nextFilter, .nextField: .nextFilter,
            .previousFilter: .previousFilter, .ship: .ship, .markDelivered: .markDelivered, .cancelOrder: .cancelOrder, .refund: .refund,
            .increaseQuantity: .increase, .decreaseQuantity: .decrease, .toggleRestock: .toggleRestock, .toggleLowStock: .toggleLowStock,
        ]) { $1 }
    }

    /// The console's screens, one key each.
    enum Tab: Equatable { case queue, stock, sales, catalog, discounts, subscriptions, customers }

    private static func show(_ tab: Tab, _ state: inout State, _ env: ShopEnvironment) -> Effect {
        switch tab {
        case .queue: return showQueue(&state, env)
        case .catalog: return showCatalog(&state, env)
        case .discounts: return showDiscounts(&state, env)
        case .subscriptions: return showSubscriptions(&state, env)
        case .customers: return showCustomers(&state, env)
        case .stock:
            state.shell.route = [.merchantQueue, .merchantStock]
            return reloadStock(&state, env)
        case .sales:
            state.shell.route = [.merchantQueue, .merchantSales]
            return reloadSales(&state, env)
        }
    }

    static func reduceKey(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if state.console.prompt != nil { return reducePrompt(&state, action, env) }
        // 1 to 7 work from any screen of the console.
        if case .show(let tab) = action { return show(tab, &state, env) }
        switch state.shell.screen {
        case .merchantQueue: return reduceQueue(&state, action, env)
        case .merchantOrder: return reduceOrder(&state, action, env)
        case .merchantRefund: return reduceRefund(&state, action, env)
        case .merchantStock: return reduceStock(&state, action, env)
        case .merchantSales: return action == .back ? showQueue(&state, env) : .none
        case .merchantCatalog: return reduceCatalog(&state, action, env)
        case .merchantDiscounts: return reduceDiscounts(&state, action, env)
        case .merchantSubscriptions: return reduceSubscriptions(&state, action, env)
        case .merchantCustomers: return reduceCustomers(&state, action, env)
        case .merchantCustomer: return reduceCustomerPage(&state, action, env)
        case .productList, .productDetail, .cart, .paymentSheet, .confirmation, .orders, .orderDetail, .account, .subscriptions, .form, .cardLink:
            return .none
        }
    }

    static func showQueue(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        state.shell.route = [.merchantQueue]
        state.console.dossier = nil
        state.console.refund = nil
        return reloadQueue(&state, env)
    }

    private static func reduceQueue(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        var queue = state.console.queue
        switch action {
        case .move(let move):
            let moved = ListSelection.moved(queue.selectedIndex, by: move, count: queue.totalCount, page: state.rowCapacity)
            queue.selectedIndex = moved
            let start = ListSelection.windowStart(
                selected: moved, currentStart: queue.windowStart, capacity: state.rowCapacity, total: queue.totalCount)
            state.console.queue = queue
            // A move inside the rows on screen needs nothing read.
            return start == queue.windowStart && !queue.isLoading ? .none : reloadQueue(&state, env)
        case .nextFilter, .previousFilter:
            let all = OrderQueueFilter.allCases
            let index = all.firstIndex(of: state.console.filter) ?? 0
            let step = action == .previousFilter ? all.count - 1 : 1
            state.console.filter = all[(index + step) % all.count]
            state.console.queue = OrderListState()
            return reloadQueue(&state, env)
        case .confirm:
            guard let order = queue.rows[safe: queue.selectedIndex - queue.windowStart] else { return .none }
            state.shell.push(.merchantOrder)
            return readDossier(order.number, env)
        case .back, .show, .newDiscount, .toggleDiscountPaused,
            .deleteDiscount,
            .newProduct, .togglePublished, .archive, .ship, .markDelivered, .cancelOrder,
            .refund, .increase, .decrease, .toggleRestock, .toggleLowStock, .search, .newNote:
            return .none
        }
    }

    private static func reduceOrder(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .back:
            state.shell.popScreen()
            state.console.dossier = nil
            return reloadQueue(&state, env)
        case .ship: if state.console.canShip { presentShipForm(&state) }
        case .markDelivered: if state.console.canMarkDelivered { ask(&state, .deliver) }
        case .cancelOrder: if state.console.canCancel { ask(&state, .cancel) }
        case .refund:
            guard state.console.canRefund, let dossier = state.console.dossier, let lifecycle = dossier.lifecycle else { return .none }
            state.console.refund = RefundDraft(dossier: dossier, refundable: lifecycle.refundable)
            state.shell.push(.merchantRefund)
        case .move, .confirm, .show, .newDiscount,
            .toggleDiscountPaused, .deleteDiscount,
            .newProduct, .togglePublished, .archive, .nextFilter,
            .previousFilter, .increase, .decrease, .toggleRestock, .toggleLowStock, .search, .newNote:
            break
        }
        return .none
    }

    /// Reads one order whole; the order screen shows it when it arrives.
    static func readDossier(_ number: String, _ env: ShopEnvironment) -> Effect {
        guard let office = env.dependencies.backOffice else { return .none }
        return .run(id: .merchantOrder) { send in
            do throws(BackOfficeError) {
                send(.merchant(.dossier(.success(try await office.dossier(number)))))
            } catch {
                send(.merchant(.dossier(.failure(error))))
            }
        }
    }

    static func reloadStock(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let office = env.dependencies.backOffice else { return .none }
        state.console.stock.isLoading = true
        return .run(id: .merchantStock) { send in
            do throws(BackOfficeError) {
                send(.merchant(.stock(.success(try await office.stockLevels()))))
            } catch {
                send(.merchant(.stock(.failure(error))))
            }
        }
    }

    static func reloadSales(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let office = env.dependencies.backOffice else { return .none }
        return .run(id: .merchantSales) { send in
            do throws(BackOfficeError) {
                send(.merchant(.sales(.success(try await office.salesSummary()))))
            } catch {
                send(.merchant(.sales(.failure(error))))
            }
        }
    }

    static func reduce(_ state: inout State, _ action: MerchantAction, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .opened: return open(&state, env)
        case .key(let key): return Action(key).map { reduceKey(&state, $0, env) } ?? .none
        case .submitForm(let form): return submitForm(&state, form, env)
        case .queue(let request, let read):
            guard request == state.console.request else { return .none }
            state.console.queue.isLoading = false
            switch read {
            case .success(let page):
                state.console.queue.totalCount = page.total
                state.console.queue.selectedIndex = ListSelection.clamped(state.console.queue.selectedIndex, count: page.total)
                state.console.queue.windowStart = page.start
                state.console.queue.rows = page.rows
            case .failure(let error):
                state.shell.notice = Notice(.error, "Could not read the orders: \(error)")
            }
        case .dossier(let read):
            switch read {
            case .success(let dossier): state.console.dossier = dossier
            case .failure(let error): state.shell.notice = Notice(.error, "Could not read the order: \(error)")
            }
        case .changed(let change, let result):
            return changed(&state, change, result, env)
        case .stock(let read):
            state.console.stock.isLoading = false
            switch read {
            case .success(let levels):
                state.console.stock.levels = levels
                state.console.stock.selectedIndex = ListSelection.clamped(state.console.stock.selectedIndex, count: state.console.stock.shown.count)
            case .failure(let error): state.shell.notice = Notice(.error, "Could not read the stock: \(error)")
            }
        case .stockChanged(let result):
            return stockChanged(&state, result, env)
        case .sales(let read):
            switch read {
            case .success(let summary): state.console.sales = summary
            case .failure(let error): state.shell.notice = Notice(.error, "Could not read the sales: \(error)")
            }
        case .catalog(let read):
            catalogRead(&state, read)
        case .catalogEdited(let result):
            return edited(&state, result, env)
        case .discounts(let read):
            discountsRead(&state, read)
        case .discountChanged(let result):
            return discountChanged(&state, result, env)
        case .subscriptions(let read):
            subscriptionsRead(&state, read)
        case .subscriptionCanceled(let answer):
            return subscriptionCanceled(&state, answer, env)
        case .customersFound(let found):
            customersFound(&state, found)
        case .customerPage(let read):
            customerPageRead(&state, read)
        }
        return .none
    }
}
