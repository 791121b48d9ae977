/// Work a reducer asks for: asynchronous operations that answer by sending actions, and
/// cancellations of work started earlier.
///
/// Reducers never start tasks themselves; the store (or the test store) runs what they return,
/// so a test sees every answer as an action it receives.
@MainActor
public struct Effect {
    public typealias Operation = @MainActor (_ send: Send) async -> Void
    /// Work that waits between steps, and can be asked to stop waiting without being cancelled.
    public typealias StoppableOperation = @MainActor (_ send: Send, _ stops: StopRequests) async -> Void

    enum Item {
        /// Starts `operation`; one with an id first cancels the work running under that id.
        case run(EffectID?, Operation)
        /// Starts `operation` under `id`, with the stop requests `.stop(id)` sends it.
        case runStoppable(EffectID, StoppableOperation)
        case cancel(EffectID)
        /// Asks the work under the id to stop waiting and wind down; unlike `cancel`, what it sends still counts.
        case stop(EffectID)
        /// An action for another feature, reduced in the same step where it stands (`AppReducer.step`).
        case send(AppAction)
    }

    var items: [Item] = []

    /// Nothing to do.
    public static var none: Effect { Effect() }

    /// One operation, run as a tracked task. With an `id`, it replaces the work running under that id:
    /// that work is cancelled, and whatever it sends from then on is dropped.
    public static func run(id: EffectID? = nil, _ operation: @escaping Operation) -> Effect {
        Effect(items: [.run(id, operation)])
    }

    /// One operation under `id` that `.stop(id)` can ask to stop waiting: it finishes what it is doing, and its
    /// last answers are reduced, where a cancelled effect's would be dropped.
    public static func run(id: EffectID, stoppable operation: @escaping StoppableOperation) -> Effect {
        Effect(items: [.runStoppable(id, operation)])
    }

    /// Asks the stoppable work under `id` to stop waiting (Esc while a payment waits on the bank).
    public static func stop(_ id: EffectID) -> Effect {
        Effect(items: [.stop(id)])
    }

    /// Asks another feature for something: `action` is reduced in this same step, in its place among
    /// the effects, so the shopper sees one frame. How features talk to each other instead of calling in.
    public static func send(_ action: AppAction) -> Effect {
        Effect(items: [.send(action)])
    }

    /// Cancels the work running under `id`; what it sends from then on is dropped.
    public static func cancel(_ id: EffectID) -> Effect {
        Effect(items: [.cancel(id)])
    }

    /// Both effects, in order of starting.
    public static func + (lhs: Effect, rhs: Effect) -> Effect {
        Effect(items: lhs.items + rhs.items)
    }

    public static func += (lhs: inout Effect, rhs: Effect) {
        lhs.items += rhs.items
    }

    public var isEmpty: Bool { items.isEmpty }
}

/// The work that can be cancelled or replaced: one of each is running at most.
public enum EffectID: Hashable, Sendable {
    /// The product list's count and page.
    case productList
    /// The orders screen's count and page.
    case orders
    /// The wallet and profile of the current customer.
    case wallet
    /// The cart's write to the cart repository: one at a time, so an older cart never lands after a newer one.
    /// Never cancelled: a session that ends waits for it.
    case cartSave
    /// The fresh stock of products just added; quitting cancels it, so the cart's last write need not wait for it.
    case stockCheck
    /// Reading the customer's saved cart.
    case cartRestore
    /// Making and following the payment service's card page, then saving its card.
    case cardLink
    /// The merchant console's reads of one order, the stock and the sales, and the change being made.
    case merchantOrder, merchantStock, merchantSales, merchantChange, merchantCatalog, merchantDiscounts, merchantSubscriptions, merchantCustomers
    /// The shopper's cancel of an order.
    case orderCancel
    /// Placing the order of the open payment sheet: charged, looked at again while unanswered or with the bank.
    case checkoutCharge
    /// Looking up the discount code typed on the payment sheet.
    case discountCode
}

/// Delivers an effect's answer to the store it came from.
///
/// An answer sent by work that was cancelled (a superseded search, a screen left) is dropped here,
/// so it is never reduced, never drawn.
@MainActor
public struct Send {
    let deliver: @MainActor (AppAction) -> Void

    public func callAsFunction(_ action: AppAction) {
        guard !Task.isCancelled else { return }
        deliver(action)
    }
}
