import ShopModels
import ShopPorts

extension LiveBackOffice {
    /// Refunds order `number` as a merchant asks at a prompt: `lines` (a product with a quantity, or all of its line),
    /// an amount as typed in the order's currency, or both (the amount is what is given back, the lines what
    /// `restock` puts back). Without an amount, the lines' price and tax are given back.
    public func refund(
        _ number: String, lines: [(ProductID, Int?)], typedAmount: String?, restock: Bool, reason: String, by actor: OrderActor
    ) async throws(BackOfficeError) -> Order {
        let order = try await dossier(number).order
        var quantities: [ProductID: Int] = [:]
        for (id, quantity) in lines {
            guard let line = order.lines.first(where: { $0.stockKey == id }) else {
                throw .change(.restockAboveOrdered(product: id.rawValue, asked: quantity ?? 1, left: 0))
            }
            quantities[id, default: 0] += quantity ?? line.quantity
        }
        let currency = order.totals.total.currency
        let amount: Money
        if let typedAmount {
            guard let typed = Money(typed: typedAmount, currency: currency) else {
                throw .change(.refused(.refundNotPositive(Money(minorUnits: 0, currency: currency))))
            }
            amount = typed
        } else {
            amount = order.refundAmount(for: quantities)
        }
        let items = restock ? quantities.sorted { $0.key < $1.key }.map { Restock(productID: $0.key, quantity: $0.value) } : []
        return try await refund(number, RefundAsk(amount: amount, restock: items, reason: reason), by: actor, expecting: order.status)
    }
}
