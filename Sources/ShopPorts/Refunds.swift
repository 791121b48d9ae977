import Foundation
import ShopModels

/// A quantity of one of an order's products put back in stock with a refund.
public struct Restock: Hashable, Sendable, Codable {
    public var productID: ProductID
    public var quantity: Int

    public init(productID: ProductID, quantity: Int) {
        self.productID = productID
        self.quantity = quantity
    }
}

/// What a merchant or a shopper asks to give back: an amount, the stock to put back, and why.
public struct RefundAsk: Hashable, Sendable {
    /// A partial or full refund, or a cancel (always the whole remaining payment and every line back in stock).
    public enum Kind: String, Hashable, Sendable { case refund, cancel }

    public var kind: Kind
    public var amount: Money
    public var restock: [Restock]
    public var reason: String

    public init(kind: Kind = .refund, amount: Money, restock: [Restock] = [], reason: String) {
        self.kind = kind
        self.amount = amount
        self.restock = restock
        self.reason = reason
    }

    /// The change to the order's history once the provider has refunded.
    public var change: OrderChange { kind == .cancel ? .canceled : .refunded(amount, reason: reason) }
}

/// How a filed refund stands: sent and not yet answered, given back, or refused by the provider.
public enum RefundState: Hashable, Sendable {
    case pending
    case refunded(reference: String)
    case declined(reason: String)

    /// How both databases store the state's name.
    public var name: String {
        switch self {
        case .pending: "pending"
        case .refunded: "refunded"
        case .declined: "declined"
        }
    }
}

/// A refund the shop filed before asking the provider for it: the record that makes a retry, or the recovery after
/// a crash, refund once.
public struct FiledRefund: Hashable, Sendable {
    /// The shop's id for the refund (`RF-000001`); the provider's idempotency key is made from it.
    public var id: String
    public var orderNumber: String
    /// The idempotency key the order was charged under: what the provider knows the payment by.
    public var chargeKey: String
    public var ask: RefundAsk
    public var actor: OrderActor
    public var filedAt: Date
    public var state: RefundState

    public init(id: String, orderNumber: String, chargeKey: String, ask: RefundAsk, actor: OrderActor, filedAt: Date, state: RefundState) {
        self.id = id
        self.orderNumber = orderNumber
        self.chargeKey = chargeKey
        self.ask = ask
        self.actor = actor
        self.filedAt = filedAt
        self.state = state
    }

    /// The key a provider files this refund under: the same refund asked twice is refunded once.
    public var idempotencyKey: String { "refund:\(id)" }
}

/// The refunds of every order, filed before the provider is asked and settled after.
///
/// Order of calls: `fileRefund` (refuses what the order's lifecycle refuses, and any refund while another is
/// pending) → the provider → `settleRefund`; `pendingRefunds` after a crash.
public protocol RefundRepository: Sendable {
    /// Files `ask` against order `number` as pending, or says why not; nothing is written on a refusal.
    func fileRefund(_ ask: RefundAsk, toOrder number: String, by actor: OrderActor, at: Date, expecting expected: OrderStatus?)
        async throws(OrderChangeError) -> FiledRefund
    /// Settles a pending refund: when refunded, its change joins the order's history and its stock goes back, in one
    /// transaction; when declined, the order is left as it was. A refund settled already is left as it is.
    func settleRefund(id: String, as state: RefundState, at: Date) async throws(OrderChangeError) -> Order
    /// Refunds filed and never settled (the process stopped, or the provider did not answer), oldest first.
    func pendingRefunds() async throws -> [FiledRefund]
    /// Takes the pending refund `id` for this process to ask the provider again, in one statement: true when it was
    /// filed or last taken at or before `cutoff` and is this caller's now (taken at `time`), false when it is settled,
    /// or is someone else's: its filer's, or another recovery's, still at work on it.
    func claimPendingRefund(id: String, at time: Date, cutoff: Date) async throws -> Bool
    /// An order's refunds, oldest first.
    func refunds(orderNumber: String) async throws -> [FiledRefund]
    /// Records a refund the provider made without the shop asking (in its dashboard): refunded already, its change in
    /// the order's history as the provider's, no stock put back, in one transaction. Nil when a refund with
    /// `reference` is recorded already, so a notice heard twice records it once.
    func recordProviderRefund(_ amount: Money, reference: String, toOrder number: String, at: Date) async throws(OrderChangeError) -> Order?
}

extension RefundAsk {
    /// The reason a refund made at the provider, not through the shop, is recorded with.
    public static let madeAtProviderReason = "refunded at the payment provider"
}

/// One refund the shop asks a provider for.
public struct RefundRequest: Hashable, Sendable {
    public var refundID: String
    public var orderNumber: String
    public var chargeKey: String
    public var amount: Money
    public var reason: String
    public var idempotencyKey: String

    public init(_ refund: FiledRefund) {
        refundID = refund.id
        orderNumber = refund.orderNumber
        chargeKey = refund.chargeKey
        amount = refund.ask.amount
        reason = refund.ask.reason
        idempotencyKey = refund.idempotencyKey
    }
}

/// Why a provider did not refund.
public enum RefundFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The provider refused it, in its words: nothing was refunded.
    case declined(String)
    /// The provider could not be reached: nothing was sent.
    case unreachable(String)
    /// Sent, but no answer came: it may have been made, and asking again with the same key tells.
    case unanswered(String)
    /// Made at the provider, but not finished (a bank still to confirm, an action it waits for): the refund stays
    /// pending, the shopper is told nothing yet, and the provider's next word (its event, or the next ask) settles it.
    case unfinished(String)

    public var description: String {
        switch self {
        case .declined(let why): "The payment provider refused the refund: \(why)"
        case .unreachable(let why): "The payment provider could not be reached, and nothing was refunded: \(why)"
        case .unanswered(let why): "The refund was sent but not answered (\(why)); it is checked again before any other change to the order."
        case .unfinished(let why):
            "The payment provider has the refund but has not finished it (\(why)); the shopper is told once it goes through, and the order waits for it."
        }
    }
}

/// Gives money back at a payment provider. A key refunds at most once: the same key gives the first answer.
public protocol RefundProcessor: Sendable {
    /// Refunds the request's amount of the payment charged under its charge key; returns the provider's refund id.
    func refund(_ request: RefundRequest) async throws(RefundFailure) -> String
}

extension Order {
    /// What giving back `quantities` of the order's lines comes to: what was paid for them (their prices less their
    /// share of a discount code, by the item, rounded down) and the tax added on them (their share of the order's,
    /// rounded down), never more than was paid, in the currency's card step (KWD in tens of fils). Tax included in
    /// prices is in what was paid already. Shipping is given back only by an amount.
    public func refundAmount(for quantities: [ProductID: Int]) -> Money {
        let exact = exactRefundAmount(for: quantities)
        let step = exact.currency.cardStep
        return Money(minorUnits: exact.minorUnits / step * step, currency: exact.currency)
    }

    private func exactRefundAmount(for quantities: [ProductID: Int]) -> Money {
        let currency = totals.total.currency
        var goods: Int64 = 0
        for line in lines {
            let quantity = min(max(0, quantities[line.stockKey] ?? 0), line.quantity)
            guard quantity > 0, line.quantity > 0 else { continue }
            // All of a line gives back all it paid; part of it, its share by the item, rounded down.
            let paid = paid(for: line).minorUnits
            goods += quantity == line.quantity ? paid : Self.share(paid, quantity, of: line.quantity)
        }
        let paidForGoods = totals.subtotal.minorUnits - (discount?.goods.minorUnits ?? 0)
        guard !totals.taxIncluded, paidForGoods > 0 else { return Money(minorUnits: goods, currency: currency) }
        return Money(minorUnits: goods + Self.share(totals.tax.minorUnits, goods, of: paidForGoods), currency: currency)
    }

    /// `amount` × `part` / `whole`, rounded down, in 128 bits: a price times a quantity never overflows here.
    private static func share(_ amount: Int64, _ part: Int64, of whole: Int64) -> Int64 {
        guard whole > 0, amount > 0, part > 0 else { return 0 }
        return whole.dividingFullWidth(amount.multipliedFullWidth(by: part)).quotient
    }

    private static func share(_ amount: Int64, _ part: Int, of whole: Int) -> Int64 { share(amount, Int64(part), of: Int64(whole)) }
}

extension FiledRefund {
    /// Whether `ask` may be filed against `order`, whose history is `events` and whose refunds are `earlier`: the
    /// lifecycle after the refund, or why not. Every refund repository decides here.
    public static func admit(
        _ ask: RefundAsk, to order: Order, events: [OrderEvent], earlier: [FiledRefund], expecting expected: OrderStatus?
    ) throws(OrderChangeError) -> OrderLifecycle {
        if let pending = earlier.first(where: { $0.state == .pending }) { throw .refundPending(pending.id) }
        let next = try OrderLifecycle.next(after: events, status: order.status, applying: ask.change, expecting: expected)
        if ask.kind == .cancel {
            // A cancel gives back what is left; an order refunded in part since it was read has changed.
            let refundable = (try? OrderLifecycle.rebuilt(from: events))?.refundable
            guard ask.amount == refundable else { throw .changed(now: order.status) }
        }
        let left = restockable(order, earlier)
        // Summed per product, not per item: one product named three times is bounded by what was bought of it once.
        var asked: [ProductID: Int] = [:]
        for item in ask.restock {
            let available = left[item.productID] ?? 0
            let before = asked[item.productID] ?? 0
            guard item.quantity > 0, item.quantity <= available - before else {
                let name = order.lines.first { $0.stockKey == item.productID }?.name ?? item.productID.rawValue
                throw .restockAboveOrdered(product: name, asked: item.quantity > available ? item.quantity : before + item.quantity, left: available)
            }
            asked[item.productID] = before + item.quantity
        }
        return next
    }

    /// How much of each product the order may still put back: what was bought, less what refunds put back already.
    public static func restockable(_ order: Order, _ refunds: [FiledRefund]) -> [ProductID: Int] {
        var left = Dictionary(order.lines.map { ($0.stockKey, $0.quantity) }, uniquingKeysWith: +)
        for refund in refunds {
            guard case .refunded = refund.state else { continue }
            for item in refund.ask.restock { left[item.productID, default: 0] -= item.quantity }
        }
        return left.filter { $0.value > 0 }
    }
}
