import Foundation
import ShopApplication
import ShopModels
import ShopPorts

extension OrderRepository {
    /// Begins an order of one `product` for `customer` with `code`, shipped to Jane in California, as a front does when
    /// Pay is pressed: the use is held (or refused) in the order's own transaction. Answers the order, or why not.
    public func begin(
        _ product: Product, code: DiscountCode, customer: String, key: String, shop: ShopProfile, at date: Date
    ) async throws -> Result<Order, OrderRepositoryError> {
        var cart = Cart(currency: shop.currency)
        _ = cart.add(product)
        let draft = try PlaceOrder.draft(
            lines: cart.lines, shippingMethodID: nil, contact: Fixtures.jane, customerID: customer, shop: shop, discount: code)
        do throws(OrderRepositoryError) {
            return .success(try await begin(draft, idempotencyKey: key, tokenID: "tok", paymentDescription: "Visa ••4242", placedAt: date))
        } catch {
            return .failure(error)
        }
    }
}
