import Foundation
import ShopModels

/// The merchant's changes to orders, and the shopper's cancel: every change goes through the order's lifecycle,
/// and money goes back through the payment provider once.
public protocol BackOffice: Sendable {
    func ship(_ number: String, _ parcel: Shipment, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError) -> Order
    func markDelivered(_ number: String, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError) -> Order
    /// Gives back `ask.amount` of the order's payment, putting `ask.restock` back in stock.
    func refund(_ number: String, _ ask: RefundAsk, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError) -> Order
    /// Cancels an order that has not shipped: gives back what is left of its payment and puts every line back.
    func cancel(_ number: String, reason: String, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError) -> Order
    /// Asks the provider again about every refund left pending (a crash, a lost answer) and settles each one it answers.
    func finishPendingRefunds() async throws -> [RefundRecovery]
    /// One order with its history and its refunds, for the screens and commands that show an order whole.
    func dossier(_ number: String) async throws(BackOfficeError) -> OrderDossier
    /// A window of the orders `filter` keeps, oldest first.
    func queue(_ filter: OrderQueueFilter, offset: Int, limit: Int) async throws(BackOfficeError) -> OrderQueuePage
    /// Today's and the last seven days' orders, revenue, refunds and net (days in UTC).
    func salesSummary() async throws(BackOfficeError) -> SalesSummary
    /// Every product's stock, fewest on hand first.
    func stockLevels() async throws(BackOfficeError) -> [StockLevel]
    func setStock(of product: ProductID, onHand: Int) async throws(BackOfficeError) -> StockLevel
    func adjustStock(of product: ProductID, by change: Int) async throws(BackOfficeError) -> StockLevel
}

/// Which orders the merchant's queue shows.
public enum OrderQueueFilter: String, Hashable, Sendable, CaseIterable {
    case paid, shipped, delivered, refunds, checking, disputed, all

    public var statuses: [OrderStatus] {
        switch self {
        case .paid: [.paid]
        case .shipped: [.shipped]
        case .delivered: [.delivered]
        case .refunds: [.partiallyRefunded, .refunded, .canceled]
        case .checking: [.charging, .unknown]
        case .disputed, .all: OrderStatus.shownToTheirShopper
        }
    }

    public var title: String {
        switch self {
        case .paid: "To ship"
        case .shipped: "Shipped"
        case .delivered: "Delivered"
        case .refunds: "Refunds"
        case .checking: "Being checked"
        case .disputed: "Disputed"
        case .all: "All"
        }
    }
}

/// A window of the merchant's queue.
public struct OrderQueuePage: Hashable, Sendable {
    public var total: Int
    public var start: Int
    public var rows: [Order]

    public init(total: Int, start: Int, rows: [Order]) {
        self.total = total
        self.start = start
        self.rows = rows
    }
}

/// The sales summary: today and the last seven days, today included.
public struct SalesSummary: Hashable, Sendable {
    public var today: SalesFigures
    public var lastSevenDays: SalesFigures
    /// The same in each market's currency the week's orders were paid in, by code: apart, as money in two currencies
    /// does not add up, each with its revenue in the shop's own currency at the rates it was sold at.
    public var inOtherCurrencies: [CurrencySales]

    public init(today: SalesFigures, lastSevenDays: SalesFigures, inOtherCurrencies: [CurrencySales] = []) {
        self.today = today
        self.lastSevenDays = lastSevenDays
        self.inOtherCurrencies = inOtherCurrencies
    }

    /// One market currency's figures.
    public struct CurrencySales: Hashable, Sendable {
        public var today: SalesFigures
        public var lastSevenDays: SalesFigures

        public init(today: SalesFigures, lastSevenDays: SalesFigures) {
            self.today = today
            self.lastSevenDays = lastSevenDays
        }
    }
}

/// An order with its history and its refunds.
public struct OrderDossier: Hashable, Sendable {
    public var order: Order
    public var events: [OrderEvent]
    public var refunds: [FiledRefund]
    /// The messages to the shopper its changes wrote, and how each stands.
    public var messages: [OutboxEntry]

    public init(order: Order, events: [OrderEvent], refunds: [FiledRefund], messages: [OutboxEntry] = []) {
        self.order = order
        self.events = events
        self.refunds = refunds
        self.messages = messages
    }

    /// What the history adds up to: what was refunded, what is left, the parcel; nil for a history that does not
    /// begin with the placement (an order older than histories, never migrated).
    public var lifecycle: OrderLifecycle? { try? OrderLifecycle.rebuilt(from: events) }

    /// How much of each product may still be put back in stock.
    public var restockable: [ProductID: Int] { FiledRefund.restockable(order, refunds) }
}

/// What asking again about a pending refund came to.
public struct RefundRecovery: Hashable, Sendable {
    public var refundID: String
    public var orderNumber: String
    /// Nil when the refund was settled as refunded; otherwise why not (declined, or still unanswered).
    public var failure: BackOfficeError?

    public init(refundID: String, orderNumber: String, failure: BackOfficeError?) {
        self.refundID = refundID
        self.orderNumber = orderNumber
        self.failure = failure
    }
}

/// Why a back-office change was not made.
public enum BackOfficeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The order's lifecycle or the database refused it; nothing was written.
    case change(OrderChangeError)
    /// The provider did not refund; see the failure for whether anything may have moved.
    case refund(RefundFailure)
    /// A stock change was refused, or the database failed.
    case stock(StockChangeError)

    public var description: String {
        switch self {
        case .change(let error): error.description
        case .refund(let failure): failure.description
        case .stock(let error): error.description
        }
    }
}
