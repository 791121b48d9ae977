import Foundation
import ShopModels
import ShopPorts

/// A row of `orders` as both databases keep it: what an order is placed with, how it is read back, and the `Order` it
/// is. `SQLOrderRepository` writes `placedColumns` and reads every row by its columns' names (`SELECT *`), so a stored
/// field is added in this file, the model, and a schema step, and nowhere else.
public struct StoredOrderRow: Decodable, Sendable {
    public var number: String
    /// The order's place in the order orders were placed in; nil on a row not read back yet.
    public var sequence: Int64?
    /// The receipt's email; nil where none was given.
    public var email: String?
    public var idempotencyKey: String
    public var status: String
    public var placedAt: Double
    public var currency: String
    public var subtotal: Int64
    public var shipping: Int64
    public var tax: Int64
    public var paymentDescription: String
    public var shippingMethod: String
    public var shippingMethodId: String
    public var shipTo: String
    public var customer: String
    public var paymentReference: String?
    /// The tax's rule (`added`, `included`, `none`), label, rate in basis points and jurisdiction.
    public var taxRule: String
    public var taxLabel: String
    public var taxRate: Int
    public var taxJurisdiction: String
    /// The discount code the order used, what it took off the goods and the shipping, and the goods' part line by line.
    public var discountCode: String?
    public var discountGoods: Int64
    public var discountShipping: Int64
    public var discountShares: String?
    /// A subscription's renewal: charged by the renewal worker, or a missed one its subscriber paid on the sheet.
    public var renewal: Bool
    /// An order sold in a market's currency: the rate (units of it per unit of the shop's own), the rates' day, and its
    /// total in the shop's own currency at that rate, for reports. Nil in the shop's own currency.
    public var exchangeRate: String?
    public var ratesDay: String?
    public var baseTotal: Int64?
    /// The locale the buyer shopped in (`de-DE`), for the order's mails; nil for English.
    public var language: String?

    /// What an order charged, in SQL both databases run: tax included in prices (VAT) is already in the other two.
    public static let chargedTotalSQL =
        "subtotal + shipping - discount_goods - discount_shipping + CASE WHEN tax_rule = 'included' THEN 0 ELSE tax END"

    /// The statuses a shopper's orders list shows, as an SQL list: `('paid', 'charging', 'unknown')`.
    public static let shownStatuses = "(" + OrderStatus.shownToTheirShopper.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// The row an order placed from `draft` starts as: charging, not yet with a reference from the provider.
    public init(
        placing draft: OrderDraft, number: String, idempotencyKey: String, paymentDescription: String, placedAt: Date, currency: Currency
    ) {
        self.number = number
        self.idempotencyKey = idempotencyKey
        status = OrderStatus.charging.rawValue
        self.placedAt = placedAt.timeIntervalSince1970
        self.currency = currency.code
        subtotal = draft.totals.subtotal.minorUnits
        shipping = draft.totals.shipping.minorUnits
        tax = draft.totals.tax.minorUnits
        self.paymentDescription = paymentDescription
        shippingMethod = draft.shippingMethod.label
        shippingMethodId = draft.shippingMethod.id
        shipTo = draft.shippingContact.shipToLine
        customer = draft.customerID
        paymentReference = nil
        taxRule = draft.tax.rule.rawValue
        taxLabel = draft.tax.label
        taxRate = draft.tax.basisPoints
        taxJurisdiction = draft.tax.jurisdiction
        discountCode = draft.discount?.code
        discountGoods = draft.discount?.goods.minorUnits ?? 0
        discountShipping = draft.discount?.shipping.minorUnits ?? 0
        discountShares = draft.discount?.sharesDocument
        renewal = draft.offSession || draft.renews != nil
        exchangeRate = draft.exchange?.rate
        ratesDay = draft.exchange?.day
        baseTotal = draft.exchange.map { $0.inBase(draft.totals.total).minorUnits }
        language = draft.language
    }

    /// What a placed order's `INSERT` writes, column by column, but `number` and `sequence`, which each database
    /// numbers its own way; with the token it was charged with and whom its mail goes to.
    public func placedColumns(tokenID: String, contact: Contact) -> [(column: String, value: SQLValue)] {
        [
            ("idempotency_key", idempotencyKey.sqlValue), ("status", status.sqlValue), ("placed_at", placedAt.sqlValue),
            ("currency", currency.sqlValue), ("subtotal", subtotal.sqlValue), ("shipping", shipping.sqlValue), ("tax", tax.sqlValue),
            ("token_id", tokenID.sqlValue), ("payment_description", paymentDescription.sqlValue), ("shipping_method", shippingMethod.sqlValue),
            ("shipping_method_id", shippingMethodId.sqlValue), ("ship_to", shipTo.sqlValue), ("customer", customer.sqlValue),
            ("payment_reference", paymentReference.sqlValue), ("email", (contact.email.isEmpty ? nil : contact.email).sqlValue),
            ("email_name", contact.name.sqlValue), ("tax_rule", taxRule.sqlValue), ("tax_label", taxLabel.sqlValue),
            ("tax_rate", taxRate.sqlValue), ("tax_jurisdiction", taxJurisdiction.sqlValue), ("discount_code", discountCode.sqlValue),
            ("discount_goods", discountGoods.sqlValue), ("discount_shipping", discountShipping.sqlValue),
            ("discount_shares", discountShares.sqlValue), ("renewal", renewal.sqlValue), ("exchange_rate", exchangeRate.sqlValue),
            ("rates_day", ratesDay.sqlValue), ("base_total", baseTotal.sqlValue),
            ("language", language.sqlValue),
        ]
    }

    /// The totals frozen on the order, in its own currency (`fallback` when the code is unknown).
    public func totals(or fallback: Currency) -> CartTotals {
        CartTotals(
            stored: currency, subtotal: subtotal, shipping: shipping, tax: tax, taxIncluded: taxPolicy.isIncluded,
            discount: discountGoods + discountShipping, fallback: fallback)
    }

    /// The tax the order was charged under; an unknown rule reads as added, as every order's was before rules.
    public var taxPolicy: TaxPolicy {
        TaxPolicy(label: taxLabel, basisPoints: taxRate, rule: TaxPolicy.Rule(rawValue: taxRule) ?? .added, jurisdiction: taxJurisdiction)
    }

    public func unsettled(fallback: Currency) -> UnsettledOrder {
        UnsettledOrder(
            number: number, idempotencyKey: idempotencyKey, placedAt: Date(timeIntervalSince1970: placedAt), total: totals(or: fallback).total,
            customerID: customer, status: OrderStatus(rawValue: status) ?? .unknown
        )
    }

    /// The order, with `lines` built in its own currency.
    public func order(fallback: Currency, lines: (Currency) -> [CartLine]) -> Order {
        let totals = totals(or: fallback)
        var order = Order(
            number: number, placedAt: Date(timeIntervalSince1970: placedAt), lines: lines(totals.total.currency), totals: totals,
            status: OrderStatus(rawValue: status) ?? .unknown, paymentDescription: paymentDescription,
            shippingMethodLabel: shippingMethod, shippingMethodID: shippingMethodId, shipTo: shipTo, customerID: customer,
            paymentReference: paymentReference, taxCharged: taxPolicy,
            discount: AppliedDiscount(stored: discountCode, shares: discountShares, shipping: discountShipping, currency: totals.total.currency)
        )
        order.isRenewal = renewal
        if let exchangeRate, let ratesDay, let baseTotal {
            order.exchange = Order.Exchange(rate: exchangeRate, day: ratesDay, baseTotal: baseTotal)
        }
        order.language = language
        order.email = email
        return order
    }
}
