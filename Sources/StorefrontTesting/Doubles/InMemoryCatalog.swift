import IssueReporting
import LiveObjects
import ShopModels
import ShopPorts

/// A catalog of any size held in memory, paged through the port SQLite serves, for tests of paging and layout.
///
/// It does not search: the shop's search is each database's own (SQLite's FTS5, PostgreSQL's tsvector), and a third
/// one here would be tested instead of theirs. A test that searches uses `Fixtures.bundledCatalog` or a SQLite
/// catalog; a search asked of this one is reported as the test's issue and finds nothing.
public final class InMemoryCatalog: CatalogRepository {
    public let shop: ShopProfile
    private let products: [Product]
    private let positions: [ProductID: Int]

    public init(catalog: Catalog) {
        shop = catalog.shop
        products = catalog.products
        positions = Dictionary(uniqueKeysWithValues: catalog.products.enumerated().map { ($1.id, $0) })
    }

    public func count(matching query: String) throws -> Int {
        guard Self.isBrowsing(query) else { return 0 }
        return products.count
    }

    public func page(matching query: String, offset: Int, limit: Int) throws -> [Product] {
        guard Self.isBrowsing(query), offset >= 0, limit > 0, offset < products.count else { return [] }
        return Array(products[offset..<offset + min(products.count - offset, limit)])
    }

    public func product(id: ProductID) throws -> Product? {
        positions[id].map { products[$0] }
    }

    /// True for the whole list; a search is reported, as this double does not search.
    private static func isBrowsing(_ query: String) -> Bool {
        guard query.allSatisfy(\.isWhitespace) else {
            reportIssue("InMemoryCatalog does not search (\"\(query)\"): use Fixtures.bundledCatalog or a SQLite catalog.")
            return false
        }
        return true
    }
}

extension InMemoryCatalog: LiveObject {}
