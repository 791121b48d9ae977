import StoreClients
import StoreModels

/// A cart store a test did not set up: reading or writing a cart fails the test.
public struct UnimplementedCartStore: CartStore {
    public init() {}

    public func lines(forCustomer customer: String) async throws -> [CartLine] {
        unimplemented("CartStore", "lines(forCustomer:)")
        throw Unimplemented(port: "CartStore")
    }

    public func save(_ lines: [CartLine], forCustomer customer: String) async throws {
        unimplemented("CartStore", "save(_:forCustomer:)")
        throw Unimplemented(port: "CartStore")
    }
}
