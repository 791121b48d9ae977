import Foundation
import ShopModels
import ShopPorts

/// What a bookkeeper takes from a period: the orders, sales by day and by product, tax by jurisdiction and refunds.
/// Each reads the period's orders and refunds a page at a time (`OrderExports`) and writes rows as CSV or JSON; money
/// is in minor units with its currency named, and again as people read it.
public enum PeriodReports {
    /// Orders and refunds are read this many at a time, each page a read of its own.
    public static let pageSize = 500

    public enum Kind: String, CaseIterable, Sendable {
        /// One row per order.
        case orders
        /// Per UTC day and currency: orders, items, goods, discounts, shipping, tax, total, refunds, net.
        case salesByDay = "sales"
        /// Per product (variant) and currency: quantity, goods, discount, paid.
        case salesByProduct = "sales-by-product"
        /// Per jurisdiction, tax and currency: orders, taxable amount, tax, tax refunded, net tax.
        case tax
        /// One row per refund settled.
        case refunds
    }

    /// Writes the report `kind` of `period` through `writer`'s `write`; returns how many rows it wrote.
    public static func write(
        _ kind: Kind, period: ExportPeriod, from source: any OrderExports, format: ExportFormat, write: @escaping (String) throws -> Void
    ) async throws -> Int {
        // Both days included, as the command takes them.
        let header = [
            "report": kind.rawValue, "from": UTCTime(period.start).calendarDate, "to": UTCTime(period.end.addingTimeInterval(-86_400)).calendarDate,
        ]
        switch kind {
        case .orders:
            var writer = ExportWriter(format: format, columns: orderColumns, header: header, write: write)
            return try await writer.streaming { row in try await eachOrder(in: period, from: source) { try row(orderRow($0)) } }
        case .refunds:
            var writer = ExportWriter(format: format, columns: refundColumns, header: header, write: write)
            return try await writer.streaming { row in try await eachRefund(in: period, from: source) { try row(refundRow($0)) } }
        case .salesByDay:
            var days = Totals<DayKey, DaySales>()
            try await eachOrder(in: period, from: source) { order in
                days.update(DayKey(day: UTCTime(order.placedAt).calendarDate, currency: order.totals.total.currency.code)) { $0.add(order) }
            }
            try await eachRefund(in: period, from: source) { refund in
                days.update(DayKey(day: UTCTime(refund.settledAt).calendarDate, currency: refund.amount.currency.code)) {
                    $0.refunds += refund.amount.minorUnits
                }
            }
            return try table(
                columns: daySalesColumns, header: header, format: format, rows: days.sorted.map { daySalesRow($0.key, $0.value) }, write: write)
        case .salesByProduct:
            var products = Totals<ProductKey, ProductSales>()
            try await eachOrder(in: period, from: source) { order in
                for line in order.lines {
                    let key = ProductKey(
                        productID: line.productID.rawValue, sku: line.variant?.sku.rawValue ?? "", name: line.name, currency: line.total.currency.code
                    )
                    products.update(key) { $0.add(line, paid: order.paid(for: line)) }
                }
            }
            return try table(
                columns: productSalesColumns, header: header, format: format, rows: products.sorted.map { productSalesRow($0.key, $0.value) },
                write: write)
        case .tax:
            var jurisdictions = Totals<TaxKey, TaxTotals>()
            try await eachOrder(in: period, from: source) { order in
                jurisdictions.update(TaxKey(order.taxCharged, currency: order.totals.total.currency.code)) { $0.add(order) }
            }
            try await eachRefund(in: period, from: source) { refund in
                jurisdictions.update(TaxKey(refund.tax, currency: refund.amount.currency.code)) { $0.refunded += refund.taxPart.minorUnits }
            }
            return try table(
                columns: taxColumns, header: header, format: format, rows: jurisdictions.sorted.map { taxRow($0.key, $0.value) }, write: write)
        }
    }

    // MARK: Reading a period a page at a time

    static func eachOrder(in period: ExportPeriod, from source: any OrderExports, _ body: (Order) throws -> Void) async throws {
        var after: Int64 = 0
        while true {
            let page = try await source.orders(in: period, after: after, limit: pageSize)
            for order in page.items { try body(order) }
            guard page.items.count == pageSize, let last = page.last else { return }
            after = last
        }
    }

    static func eachRefund(in period: ExportPeriod, from source: any OrderExports, _ body: (SettledRefund) throws -> Void) async throws {
        var after: Int64 = 0
        while true {
            let page = try await source.refunds(in: period, after: after, limit: pageSize)
            for refund in page.items { try body(refund) }
            guard page.items.count == pageSize, let last = page.last else { return }
            after = last
        }
    }

    static func table(
        columns: [String], header: [String: String], format: ExportFormat, rows: [[ExportCell]], write: @escaping (String) throws -> Void
    )
        throws -> Int
    {
        var writer = ExportWriter(format: format, columns: columns, header: header, write: write)
        try writer.begin()
        for row in rows { try writer.row(row) }
        try writer.end()
        return rows.count
    }

    /// An amount in minor units, then as people read it.
    static func money(_ amount: Money) -> [ExportCell] { [.integer(amount.minorUnits), .text(amount.formatted)] }

    // MARK: Orders

    static let orderColumns = [
        "number", "placed_at", "status", "customer", "email", "currency", "items", "subtotal", "discount", "discount_code", "shipping", "tax",
        "tax_included", "tax_jurisdiction", "tax_label", "tax_rate", "total", "total_display", "shipping_method", "ship_to", "payment",
        "renewal", "exchange_rate", "rates_day", "base_total",
    ]

    static func orderRow(_ order: Order) -> [ExportCell] {
        let totals = order.totals
        return [
            .text(order.number), .text(UTCTime(order.placedAt).iso8601), .text(order.status.rawValue), .text(order.customerID),
            .text(order.email ?? ""), .text(totals.total.currency.code), .integer(Int64(order.itemCount)), .integer(totals.subtotal.minorUnits),
            .integer(totals.discount.minorUnits), .text(order.discount?.code ?? ""), .integer(totals.shipping.minorUnits),
            .integer(totals.tax.minorUnits), .text(totals.taxIncluded ? "yes" : "no"), .text(order.taxCharged.jurisdiction),
            .text(order.taxCharged.label), .text(order.taxCharged.percent),
        ] + money(totals.total) + [
            .text(order.shippingMethodLabel), .text(order.shipTo), .text(order.paymentDescription), .text(order.isRenewal ? "yes" : "no"),
            .text(order.exchange?.rate ?? ""), .text(order.exchange?.day ?? ""), order.exchange.map { .integer($0.baseTotal) } ?? .text(""),
        ]
    }

    // MARK: Refunds

    static let refundColumns = [
        "refund", "order", "settled_at", "kind", "currency", "amount", "amount_display", "tax_part", "tax_jurisdiction", "reason", "by",
    ]

    static func refundRow(_ refund: SettledRefund) -> [ExportCell] {
        [
            .text(refund.id), .text(refund.orderNumber), .text(UTCTime(refund.settledAt).iso8601), .text(refund.kind.rawValue),
            .text(refund.amount.currency.code),
        ] + money(refund.amount) + [.integer(refund.taxPart.minorUnits), .text(refund.tax.jurisdiction), .text(refund.reason), .text(refund.actor)]
    }

    // MARK: Sales by day

    struct DayKey: Hashable, Comparable {
        var day: String
        var currency: String
        static func < (a: Self, b: Self) -> Bool { (a.day, a.currency) < (b.day, b.currency) }
    }

    struct DaySales {
        var orders: Int64 = 0
        var items: Int64 = 0
        var goods: Int64 = 0
        var discount: Int64 = 0
        var shipping: Int64 = 0
        var tax: Int64 = 0
        var total: Int64 = 0
        var refunds: Int64 = 0

        mutating func add(_ order: Order) {
            let totals = order.totals
            orders += 1
            items += Int64(order.itemCount)
            goods += totals.subtotal.minorUnits
            discount += totals.discount.minorUnits
            shipping += totals.shipping.minorUnits
            tax += totals.tax.minorUnits
            total += totals.total.minorUnits
        }
    }

    static let daySalesColumns = [
        "day", "currency", "orders", "items", "goods", "discounts", "shipping", "tax", "total", "refunds", "net", "net_display",
    ]

    static func daySalesRow(_ key: DayKey, _ sales: DaySales) -> [ExportCell] {
        let currency = Currency(code: key.currency) ?? .usd
        return [
            .text(key.day), .text(key.currency), .integer(sales.orders), .integer(sales.items), .integer(sales.goods), .integer(sales.discount),
            .integer(sales.shipping), .integer(sales.tax), .integer(sales.total), .integer(sales.refunds),
        ] + money(Money(minorUnits: sales.total - sales.refunds, currency: currency))
    }

    // MARK: Sales by product

    struct ProductKey: Hashable, Comparable {
        var productID: String
        var sku: String
        var name: String
        var currency: String
        static func < (a: Self, b: Self) -> Bool { (a.productID, a.sku, a.currency) < (b.productID, b.sku, b.currency) }
    }

    struct ProductSales {
        var quantity: Int64 = 0
        var goods: Int64 = 0
        var paid: Int64 = 0

        mutating func add(_ line: CartLine, paid linePaid: Money) {
            quantity += Int64(line.quantity)
            goods += line.total.minorUnits
            paid += linePaid.minorUnits
        }
    }

    static let productSalesColumns = ["product", "sku", "name", "currency", "quantity", "goods", "discount", "paid", "paid_display"]

    static func productSalesRow(_ key: ProductKey, _ sales: ProductSales) -> [ExportCell] {
        [
            .text(key.productID), .text(key.sku), .text(key.name), .text(key.currency), .integer(sales.quantity), .integer(sales.goods),
            .integer(sales.goods - sales.paid),
        ] + money(Money(minorUnits: sales.paid, currency: Currency(code: key.currency) ?? .usd))
    }

    // MARK: Tax by jurisdiction

    struct TaxKey: Hashable, Comparable {
        var jurisdiction: String
        var label: String
        var rule: String
        var rate: Int
        var currency: String

        init(_ tax: TaxPolicy, currency: String) {
            jurisdiction = tax.jurisdiction
            label = tax.label
            rule = tax.rule.rawValue
            rate = tax.basisPoints
            self.currency = currency
        }

        static func < (a: Self, b: Self) -> Bool {
            (a.jurisdiction, a.label, a.rate, a.rule, a.currency) < (b.jurisdiction, b.label, b.rate, b.rule, b.currency)
        }
    }

    struct TaxTotals {
        var orders: Int64 = 0
        /// What the orders charged without their tax: the goods after discount and the shipping.
        var taxable: Int64 = 0
        var tax: Int64 = 0
        var refunded: Int64 = 0

        mutating func add(_ order: Order) {
            let totals = order.totals
            orders += 1
            tax += totals.tax.minorUnits
            taxable += totals.total.minorUnits - totals.tax.minorUnits
        }
    }

    static let taxColumns = [
        "jurisdiction", "tax", "rule", "rate", "currency", "orders", "taxable", "tax_charged", "tax_refunded", "net_tax", "net_tax_display",
    ]

    static func taxRow(_ key: TaxKey, _ totals: TaxTotals) -> [ExportCell] {
        let rate = TaxPolicy(basisPoints: key.rate).percent
        return [
            .text(key.jurisdiction), .text(key.label), .text(key.rule), .text(rate), .text(key.currency), .integer(totals.orders),
            .integer(totals.taxable), .integer(totals.tax), .integer(totals.refunded),
        ] + money(Money(minorUnits: totals.tax - totals.refunded, currency: Currency(code: key.currency) ?? .usd))
    }
}

/// A running sum that starts at nothing.
protocol RunningTotal { init() }

extension PeriodReports.DaySales: RunningTotal {}
extension PeriodReports.ProductSales: RunningTotal {}
extension PeriodReports.TaxTotals: RunningTotal {}

/// Sums by key, kept in a dictionary and listed in the key's order.
struct Totals<Key: Hashable & Comparable, Value: RunningTotal> {
    private var values: [Key: Value] = [:]

    mutating func update(_ key: Key, _ change: (inout Value) -> Void) { change(&values[key, default: Value()]) }

    var sorted: [(key: Key, value: Value)] { values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
}
