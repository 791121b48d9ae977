import ShopModels

/// A catalog as one market sells it: the same products, priced in the market's currency, and the shop's profile with
/// its amounts in that currency. Counting and searching are the catalog's own.
public struct MarketCatalog: CatalogRepository {
    public let base: any CatalogRepository
    public let pricing: MarketPricing
    public let market: Market

    public init(_ base: any CatalogRepository, pricing: MarketPricing, market: Market) {
        // A market's view of another market's view is of the catalog itself.
        self.base = (base as? MarketCatalog)?.base ?? base
        self.pricing = pricing
        self.market = market
    }

    public var shop: ShopProfile { pricing.shop(in: market) }

    /// The catalog under any market's view, as its file writes it.
    public static func unpriced(_ catalog: any CatalogRepository) -> any CatalogRepository {
        (catalog as? MarketCatalog)?.base ?? catalog
    }

    /// `catalog` as its home market sells it, where its profile names markets: what every part of the shop outside a
    /// session (the API, the workers, the reports) reads, so its profile has one currency. A session moves to another
    /// market through `pricing`.
    public static func home(_ catalog: any CatalogRepository, pricing: MarketPricing?) -> any CatalogRepository {
        guard let pricing else { return catalog }
        return MarketCatalog(catalog, pricing: pricing, market: pricing.home)
    }

    public func count(matching query: String) async throws -> Int { try await base.count(matching: query) }

    public func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        try await base.page(matching: query, offset: offset, limit: limit).map { pricing.product($0, in: market) }
    }

    public func product(id: ProductID) async throws -> Product? {
        try await base.product(id: id).map { pricing.product($0, in: market) }
    }
}
