import ShopModels
import ShopPorts

/// A catalog a test did not set up: its profile answers, every read fails the test.
public struct UnimplementedCatalog: CatalogRepository {
    public let shop: ShopProfile
    public init(shop: ShopProfile = .standard()) { self.shop = shop }

    public func count(matching query: String) async throws -> Int {
        unimplemented("CatalogRepository", "count(matching:)")
        throw Unimplemented(port: "CatalogRepository")
    }

    public func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        unimplemented("CatalogRepository", "page(matching:offset:limit:)")
        throw Unimplemented(port: "CatalogRepository")
    }

    public func product(id: ProductID) async throws -> Product? {
        unimplemented("CatalogRepository", "product(id:)")
        throw Unimplemented(port: "CatalogRepository")
    }
}
