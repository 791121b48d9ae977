import ShopModels
import ShopPorts

/// A cart repository a test did not set up: reading or writing a cart fails the test.
public struct UnimplementedCartRepository: CartRepository {
    public init() {}

    public func lines(forCustomer customer: String) async throws -> [CartLine] {
        unimplemented("CartRepository", "lines(forCustomer:)")
        throw Unimplemented(port: "CartRepository")
    }

    public func save(_ lines: [CartLine], forCustomer customer: String) async throws {
        unimplemented("CartRepository", "save(_:forCustomer:)")
        throw Unimplemented(port: "CartRepository")
    }
}
