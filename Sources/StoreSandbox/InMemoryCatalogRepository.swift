import Foundation
import Synchronization
import StoreClients
import StoreModels

/// A catalog held in memory, paged and searched through the same port SQLite will serve.
///
/// Search matches every whitespace-separated term as a case-insensitive substring of the
/// name, summary or tags. The last result is cached, and a query that extends it (the shopper
/// typed one more letter) filters only the previous matches.
public final class InMemoryCatalogRepository: CatalogRepository {
    public let store: StoreProfile
    private let products: [Product]
    private let index: [ProductID: Int]
    /// Lower-cased searchable text of every product, as UTF-8.
    private let haystacks: [[UInt8]]
    private let lastSearch = Mutex<(query: [[UInt8]], matches: [Int32])?>(nil)

    public init(catalog: Catalog) {
        store = catalog.store
        products = catalog.products
        var index: [ProductID: Int] = [:]
        index.reserveCapacity(catalog.products.count)
        for (position, product) in catalog.products.enumerated() { index[product.id] = position }
        self.index = index
        haystacks = catalog.products.map { product in
            Array(([product.name, product.summary] + product.tags).joined(separator: " ").lowercased().utf8)
        }
    }

    public func count(matching query: String) throws -> Int {
        let terms = Self.terms(query)
        return terms.isEmpty ? products.count : matches(for: terms).count
    }

    public func page(matching query: String, offset: Int, limit: Int) throws -> [Product] {
        guard offset >= 0, limit > 0 else { return [] }
        let terms = Self.terms(query)
        if terms.isEmpty {
            guard offset < products.count else { return [] }
            return Array(products[offset..<min(products.count, offset + limit)])
        }
        let found = matches(for: terms)
        guard offset < found.count else { return [] }
        return found[offset..<min(found.count, offset + limit)].map { products[Int($0)] }
    }

    public func product(id: ProductID) throws -> Product? {
        index[id].map { products[$0] }
    }

    private static func terms(_ query: String) -> [[UInt8]] {
        query.lowercased().split(whereSeparator: \.isWhitespace).map { Array($0.utf8) }
    }

    private func matches(for terms: [[UInt8]]) -> [Int32] {
        if let cached = lastSearch.withLock({ $0 }) {
            if cached.query == terms { return cached.matches }
            if Self.refines(terms, cached.query) {
                let narrowed = cached.matches.filter { contains(haystacks[Int($0)], all: terms) }
                lastSearch.withLock { $0 = (terms, narrowed) }
                return narrowed
            }
        }
        var found: [Int32] = []
        for position in haystacks.indices where contains(haystacks[position], all: terms) {
            found.append(Int32(position))
        }
        lastSearch.withLock { $0 = (terms, found) }
        return found
    }

    /// True when every match of `new` is also a match of `old`: each old term is inside the new term in its place.
    private static func refines(_ new: [[UInt8]], _ old: [[UInt8]]) -> Bool {
        guard new.count >= old.count else { return false }
        return zip(new, old).allSatisfy { newTerm, oldTerm in
            oldTerm.isEmpty || find(oldTerm, in: newTerm)
        }
    }

    private func contains(_ haystack: [UInt8], all terms: [[UInt8]]) -> Bool {
        terms.allSatisfy { Self.find($0, in: haystack) }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        let n = needle.count, h = haystack.count
        guard n <= h else { return false }
        if n == 0 { return true }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                let first = pin[0]
                var i = 0
                while i <= h - n {
                    if hay[i] == first {
                        var j = 1
                        while j < n && hay[i + j] == pin[j] { j += 1 }
                        if j == n { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }
}

extension InMemoryCatalogRepository {
    /// The catalog the binary carries.
    public static func bundled() throws -> InMemoryCatalogRepository {
        InMemoryCatalogRepository(catalog: try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled catalog"))
    }
}
