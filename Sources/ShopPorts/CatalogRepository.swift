import Foundation
import ShopLanguages
import ShopModels

/// Pages products out of wherever the catalog lives, so no screen ever holds the whole catalog.
///
/// Reads are `async`: the catalog may live in a database across a network, or behind a lock, and the
/// shop answers keys that need no data while a read is pending. Each read is bounded by `limit`.
public protocol CatalogRepository: Sendable {
    /// The merchant profile that came with the catalog.
    var shop: ShopProfile { get }
    /// How many products match `query` (all of them when it is empty).
    func count(matching query: String) async throws -> Int
    /// At most `limit` matching products, starting at `offset`, in catalog order.
    func page(matching query: String, offset: Int, limit: Int) async throws -> [Product]
    /// One product by id, or nil when there is none.
    func product(id: ProductID) async throws -> Product?
}

/// Past paid orders, newest first: one customer's, or everyone's when `customer` is nil.
public protocol OrderHistory: Sendable {
    func count(customer: String?) async throws -> Int
    func orders(customer: String?, offset: Int, limit: Int) async throws -> [Order]
    func order(number: String) async throws -> Order?
    /// The order's history, oldest first: append-only, written in the same transaction as each change.
    func events(orderNumber: String) async throws -> [OrderEvent]
}

/// A storage failure that the shopper should be told about in plain words.
public struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// The database could not be reached (a server that is down or restarting): the same
    /// call may work in a moment, so the shop keeps what it has and tries again.
    public var isUnavailable: Bool
    public init(_ message: String, isUnavailable: Bool = false) {
        self.message = message
        self.isUnavailable = isUnavailable
    }
    public var description: String { message }

    /// The words a shopper sees while the database cannot be reached.
    public static let unavailableMessage = unavailableWords.description
    /// `unavailableMessage` in the shopper's language.
    public static let unavailableWords = Localized("The database is not reachable; retrying")

    /// Any storage failure as the shop tells it; a `StorageError` stays what it is.
    public init(describing error: any Error) {
        self = error as? StorageError ?? StorageError("\(error)")
    }
}

/// Where placed orders are kept, with the stock they take.
///
/// Order of calls for one charge: `begin` (creates the order with its lines and totals frozen,
/// reserves stock in the same transaction, stores the idempotency key before any charge) →
/// the charge → `finish` (paid: reserved becomes sold; declined or canceled: stock is released).
public protocol OrderRepository: OrderHistory {
    /// Starts an order for `draft`, or returns the order already started with this key.
    func begin(_ draft: OrderDraft, idempotencyKey: String, tokenID: String, paymentDescription: String, placedAt: Date)
        async throws(OrderRepositoryError) -> Order
    /// Records how the charge ended, at `at`, and settles the reserved stock; its event joins the order's history in
    /// the same transaction.
    func finish(orderNumber: String, status: OrderStatus, failure: String?, at: Date) async throws(OrderRepositoryError)
    /// Orders whose charge has not been settled (the process stopped, or the provider did not answer).
    func unsettledOrders() async throws -> [UnsettledOrder]
    /// Applies `change` to order `number`, as `actor`, at `at`: the order's lifecycle, rebuilt from its history,
    /// decides whether it may follow, and the new status and its event are written in one transaction.
    /// `expected` is the status the caller saw; an order that moved on since is refused as `.changed`, so of two
    /// changes racing for one order exactly one is made.
    func apply(_ change: OrderChange, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        async throws(OrderChangeError) -> Order
}

/// Why a change to an order was not made; nothing was written.
public enum OrderChangeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The lifecycle does not allow it, and why.
    case refused(OrderChangeRefusal)
    /// The order changed since it was read (another merchant, the shopper): it is now `now`.
    case changed(now: OrderStatus)
    case notFound(String)
    /// A refund of the order was sent to the payment provider and is not settled yet: nothing else may change the
    /// order until it is (it is checked again by `storefront orders recover` and on every start).
    case refundPending(String)
    /// Asked to put back more of a product than the order has left to put back.
    case restockAboveOrdered(product: String, asked: Int, left: Int)
    case storage(String)

    public var description: String {
        switch self {
        case .refused(let refusal): "\(refusal)"
        case .refundPending(let id): "Refund \(id) of this order is waiting for the payment provider's answer; try again once it is settled."
        case .restockAboveOrdered(let product, let asked, let left):
            "Cannot put back \(asked) of \(product): only \(left) of those bought \(left == 1 ? "is" : "are") left to put back."
        case .changed(let now): "The order changed meanwhile: it is now \(now.displayName.lowercased()). Look at it again."
        case .notFound(let number): "There is no order \(number)."
        case .storage(let why): "The order could not be changed: \(why)"
        }
    }
}

extension OrderRepository {
    /// `finish`, its event stamped now: for tests and tools that keep no clock of their own.
    public func finish(orderNumber: String, status: OrderStatus, failure: String?) async throws(OrderRepositoryError) {
        try await finish(orderNumber: orderNumber, status: status, failure: failure, at: Date())
    }
}

/// An order still waiting to learn how its charge ended.
public struct UnsettledOrder: Hashable, Sendable {
    public var number: String
    public var idempotencyKey: String
    public var placedAt: Date
    /// What the order charges, with tax and shipping: what a void is filed for.
    public var total: Money
    /// Whose order it is.
    public var customerID: String
    /// `.charging` while a charge may be under way, `.unknown` once one went unanswered.
    public var status: OrderStatus
    public init(number: String, idempotencyKey: String, placedAt: Date, total: Money, customerID: String, status: OrderStatus) {
        self.number = number
        self.idempotencyKey = idempotencyKey
        self.placedAt = placedAt
        self.total = total
        self.customerID = customerID
        self.status = status
    }
}

/// Why an order could not be started or finished.
public enum OrderRepositoryError: Error, Equatable, Sendable {
    /// Not enough of a product is left; nothing was reserved.
    case soldOut(productName: String, available: Int)
    /// The key was used before for a different order.
    case idempotencyMismatch
    /// The order's discount code has no use left for it, or no longer holds; nothing was reserved.
    case discountRefused(DiscountRefusal)
    case storage(String)
}

/// Where each customer's cart is kept, so it survives quitting, a crash and reconnecting.
public protocol CartRepository: Sendable {
    func lines(forCustomer customer: String) async throws -> [CartLine]
    /// Replaces the customer's cart with `lines`.
    func save(_ lines: [CartLine], forCustomer customer: String) async throws
}

/// The words a catalog search matches on: runs of letters and digits, lowercased, accents removed
/// (what SQLite's `unicode61 remove_diacritics 2` tokenizer keeps), so every repository splits alike.
public enum SearchWords {
    public static func words(in text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber) }
            .map { $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased() }
            .filter { !$0.isEmpty }
    }
}

extension CatalogRepository {
    /// Each of `order`'s lines' pictures, by digest, as the catalog has them now: the chosen variant's where it has its
    /// own, the product's otherwise; nil for a line without one, or whose product is gone. The order's page and its
    /// receipt show the same.
    public func pictureDigests(of order: Order) async -> [String?] {
        var digests: [String?] = []
        for line in order.lines {
            let product = try? await self.product(id: line.productID)
            let variant = product?.variants.first { $0.sku == line.variant?.sku }
            digests.append(product.flatMap { $0.pictures(for: variant).first?.digest }.flatMap { PictureReference.isDigest($0) ? $0 : nil })
        }
        return digests
    }
}
