import LiveObjects
import ShopModels
import ShopPorts
import Synchronization

/// A catalog for the many sessions of one worker process: every read still goes to `base`, but a product (or a whole
/// page) equal to one another session already holds is answered with that session's copy, so sessions showing the same
/// products share one copy of their text instead of each decoding its own (docs/sessions.md, "Sessions in workers").
public final class SharedCatalogReads: CatalogRepository {
    private let base: any CatalogRepository
    private let copies = Mutex(ProductCopies())

    public init(_ base: any CatalogRepository) { self.base = base }

    public var shop: ShopProfile { base.shop }

    public func count(matching query: String) async throws -> Int { try await base.count(matching: query) }

    public func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        let read = try await base.page(matching: query, offset: offset, limit: limit)
        return copies.withLock { $0.shared(read, for: ProductCopies.PageKey(query: query, offset: offset, limit: limit)) }
    }

    public func product(id: ProductID) async throws -> Product? {
        guard let read = try await base.product(id: id) else { return nil }
        return copies.withLock { $0.shared(read) }
    }
}

/// The last copies read of products and pages, each replaced as soon as a read differs (a price or stock changed).
struct ProductCopies: Sendable {
    struct PageKey: Hashable, Sendable {
        var query: String
        var offset: Int
        var limit: Int
    }

    /// Bounds on what is held: a catalog larger than this is still read whole by scrolling shoppers, so the copies are
    /// dropped together when full (the next reads keep what is read again) rather than growing with the catalog.
    static let productLimit = 4096
    static let pageLimit = 32

    private(set) var products: [ProductID: Product] = [:]
    private(set) var pages: [PageKey: [Product]] = [:]
    /// The pages' keys, oldest first: the oldest is dropped for a new one past `pageLimit`.
    private var pageOrder: [PageKey] = []

    /// The copy held of `product` when it is equal, else `product`, held from now on.
    mutating func shared(_ product: Product) -> Product {
        if let held = products[product.id], held == product { return held }
        if products.count >= Self.productLimit, products[product.id] == nil { products.removeAll(keepingCapacity: true) }
        products[product.id] = product
        return product
    }

    /// The page held for `key` when it is equal to `read`, else `read` made of the products held, held from now on.
    mutating func shared(_ read: [Product], for key: PageKey) -> [Product] {
        if let held = pages[key], held == read { return held }
        let page = read.map { shared($0) }
        if pages.updateValue(page, forKey: key) == nil {
            pageOrder.append(key)
            if pageOrder.count > Self.pageLimit { pages[pageOrder.removeFirst()] = nil }
        }
        return page
    }
}

extension SharedCatalogReads: LiveObject {}
