import Foundation
import ShopModels
import ShopPorts

/// The back office the shop runs on, whatever the provider and the database.
///
/// Order of calls per refund (and cancel): `fileRefund` (pending; the lifecycle refuses what may not follow, and a
/// second refund of the order while one is pending) → `processor.refund` under the refund's own key →
/// `settleRefund` (the change, its event and the restock, in one transaction). A refund left pending by a crash or a
/// lost answer is asked for again by `finishPendingRefunds`, with the same key: it is refunded once.
public struct LiveBackOffice: BackOffice {
    /// The steps between which a process can die; fault tests stop the process at each.
    public enum Step: String, Sendable, CaseIterable {
        case afterFilingRefund = "after-filing-refund"
        case afterRefunding = "after-refunding"
    }

    public typealias Orders = OrderRepository & RefundRepository & OrderQueue
    private let orders: any Orders
    private let stock: (any StockRepository)?
    private let processor: any RefundProcessor
    private let mail: (any MailOutbox)?
    private let dates: DateSource
    private let currency: Currency
    private let refundInFlightAge: Duration
    private let reached: @Sendable (Step) -> Void

    /// The age below which a pending refund is taken to be still in its filer's hands, as charges are.
    public static let refundInFlightAge: Duration = .seconds(120)

    /// `stock` is nil where stock is not kept (the in-memory sandbox). A pending refund is asked for again only once
    /// `refundInFlightAge` has passed since it was filed or last taken. `reached` is called as each step completes;
    /// the shop passes a no-op, fault tests a kill.
    public init(
        orders: any Orders, stock: (any StockRepository)? = nil, processor: any RefundProcessor, mail: (any MailOutbox)? = nil, dates: DateSource,
        currency: Currency, refundInFlightAge: Duration = refundInFlightAge, reached: @escaping @Sendable (Step) -> Void = { _ in }
    ) {
        self.refundInFlightAge = refundInFlightAge
        self.mail = mail
        self.orders = orders
        self.stock = stock
        self.processor = processor
        self.dates = dates
        self.currency = currency
        self.reached = reached
    }

    public func ship(_ number: String, _ parcel: Shipment, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError)
        -> Order
    {
        try await apply(.shipped(parcel), number, actor, expected)
    }

    public func markDelivered(_ number: String, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError) -> Order {
        try await apply(.delivered, number, actor, expected)
    }

    public func refund(_ number: String, _ ask: RefundAsk, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError)
        -> Order
    {
        let filed: FiledRefund
        do { filed = try await orders.fileRefund(ask, toOrder: number, by: actor, at: dates.now(), expecting: expected) } catch {
            throw .change(error)
        }
        reached(.afterFilingRefund)
        return try await send(filed)
    }

    public func cancel(_ number: String, reason: String, by actor: OrderActor, expecting expected: OrderStatus?) async throws(BackOfficeError)
        -> Order
    {
        let dossier = try await dossier(number)
        // A shopper cancels their own orders only: anyone else's is, to them, no order at all.
        if case .shopper(let customer) = actor, dossier.order.customerID != customer { throw .change(.notFound(number)) }
        guard let lifecycle = dossier.lifecycle else { throw .change(.refused(.noPlacement)) }
        let restock = dossier.restockable.sorted { $0.key < $1.key }.map { Restock(productID: $0.key, quantity: $0.value) }
        let ask = RefundAsk(kind: .cancel, amount: lifecycle.refundable, restock: restock, reason: reason)
        return try await refund(number, ask, by: actor, expecting: expected ?? dossier.order.status)
    }

    public func finishPendingRefunds() async throws -> [RefundRecovery] {
        var recoveries: [RefundRecovery] = []
        let now = dates.now()
        let cutoff = now.addingTimeInterval(-Double(refundInFlightAge.components.seconds))
        for filed in try await orders.pendingRefunds() {
            // Taken first, in one statement: two recoveries starting together never both ask the provider again.
            guard try await orders.claimPendingRefund(id: filed.id, at: now, cutoff: cutoff) else { continue }
            do {
                _ = try await send(filed)
                recoveries.append(RefundRecovery(refundID: filed.id, orderNumber: filed.orderNumber, failure: nil))
            } catch {
                recoveries.append(RefundRecovery(refundID: filed.id, orderNumber: filed.orderNumber, failure: error))
            }
        }
        return recoveries
    }

    public func dossier(_ number: String) async throws(BackOfficeError) -> OrderDossier {
        do {
            guard let order = try await orders.order(number: number) else { throw BackOfficeError.change(.notFound(number)) }
            return OrderDossier(
                order: order, events: try await orders.events(orderNumber: number), refunds: try await orders.refunds(orderNumber: number),
                messages: try await mail?.entries(orderNumber: number) ?? []
            )
        } catch let error as BackOfficeError {
            throw error
        } catch {
            throw .change(.storage("\(error)"))
        }
    }

    public func queue(_ filter: OrderQueueFilter, offset: Int, limit: Int) async throws(BackOfficeError) -> OrderQueuePage {
        do {
            let total = try await orders.count(statuses: filter.statuses, disputedOnly: filter == .disputed)
            let start = min(max(0, offset), max(0, total - 1))
            let rows = try await orders.orders(statuses: filter.statuses, disputedOnly: filter == .disputed, offset: start, limit: limit)
            return OrderQueuePage(total: total, start: start, rows: rows)
        } catch {
            throw .change(.storage("\(error)"))
        }
    }

    public func salesSummary() async throws(BackOfficeError) -> SalesSummary {
        let now = dates.now()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let today = calendar.startOfDay(for: now)
        let weekStart = today.addingTimeInterval(-6 * 86_400)
        let end = today.addingTimeInterval(86_400)
        do {
            var others: [SalesSummary.CurrencySales] = []
            for other in try await orders.currencies(from: weekStart, to: end) where other != currency {
                others.append(
                    SalesSummary.CurrencySales(
                        today: try await orders.sales(from: today, to: end, currency: other),
                        lastSevenDays: try await orders.sales(from: weekStart, to: end, currency: other)))
            }
            return SalesSummary(
                today: try await orders.sales(from: today, to: end, currency: currency),
                lastSevenDays: try await orders.sales(from: weekStart, to: end, currency: currency), inOtherCurrencies: others
            )
        } catch {
            throw .change(.storage("\(error)"))
        }
    }

    public func stockLevels() async throws(BackOfficeError) -> [StockLevel] {
        guard let stock else { return [] }
        do { return try await stock.stockLevels() } catch { throw .stock(.storage("\(error)")) }
    }

    public func setStock(of product: ProductID, onHand: Int) async throws(BackOfficeError) -> StockLevel {
        guard let stock else { throw .stock(.unknownProduct(product)) }
        do { return try await stock.setStock(of: product, onHand: onHand) } catch { throw .stock(error) }
    }

    public func adjustStock(of product: ProductID, by change: Int) async throws(BackOfficeError) -> StockLevel {
        guard let stock else { throw .stock(.unknownProduct(product)) }
        do { return try await stock.adjustStock(of: product, by: change) } catch { throw .stock(error) }
    }

    /// Asks the provider for a filed refund and settles it by the answer; an unanswered one stays pending.
    private func send(_ filed: FiledRefund) async throws(BackOfficeError) -> Order {
        let reference: String
        do {
            reference = try await processor.refund(RefundRequest(filed))
        } catch {
            switch error {
            case .declined(let why), .unreachable(let why):
                // Nothing was refunded: the refund is closed so the order can change again, and says why.
                _ = try? await orders.settleRefund(id: filed.id, as: .declined(reason: why), at: dates.now())
            case .unanswered, .unfinished:
                break
            }
            throw .refund(error)
        }
        reached(.afterRefunding)
        do { return try await orders.settleRefund(id: filed.id, as: .refunded(reference: reference), at: dates.now()) } catch { throw .change(error) }
    }

    private func apply(_ change: OrderChange, _ number: String, _ actor: OrderActor, _ expected: OrderStatus?) async throws(BackOfficeError) -> Order
    {
        do { return try await orders.apply(change, toOrder: number, by: actor, at: dates.now(), expecting: expected) } catch { throw .change(error) }
    }
}
