import ShopModels
import ShopPorts

/// Order history a test did not set up: every read fails the test.
public struct UnimplementedOrderHistory: OrderHistory {
    public init() {}

    public func count(customer: String?) async throws -> Int {
        unimplemented("OrderHistory", "count(customer:)")
        throw Unimplemented(port: "OrderHistory")
    }

    public func orders(customer: String?, offset: Int, limit: Int) async throws -> [Order] {
        unimplemented("OrderHistory", "orders(customer:offset:limit:)")
        throw Unimplemented(port: "OrderHistory")
    }

    public func order(number: String) async throws -> Order? {
        unimplemented("OrderHistory", "order(number:)")
        throw Unimplemented(port: "OrderHistory")
    }

    public func events(orderNumber: String) async throws -> [OrderEvent] {
        unimplemented("OrderHistory", "events(orderNumber:)")
        throw Unimplemented(port: "OrderHistory")
    }
}
