import Foundation
import LiveObjects
import ShopBundledCatalog
import ShopModels
import ShopPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A catalog held in memory, paged and searched through the same port SQLite will serve.
///
/// Search matches every whitespace-separated term as a case-insensitive substring of the
/// name, summary or tags. The last result is cached, and a query that extends it (the shopper
/// typed one more letter) filters only the previous matches.
public final class InMemoryCatalogRepository: CatalogRepository {
    public let shop: ShopProfile
    private let products: [Product]
    private let positions: [ProductID: Int]
    /// Lower-cased searchable text of every product as UTF-8, back to back, each ended by a newline.
    private let haystack: [UInt8]
    /// Where each product's text starts in `haystack`, plus one final entry for the end.
    private let starts: [Int]
    private let lastSearch = Mutex<(query: [[UInt8]], matches: [Int32])?>(nil)
    /// Built on the first search, so start-up does not pay for it.
    private let index = Mutex<GramIndex?>(nil)

    public init(catalog: Catalog) {
        shop = catalog.shop
        products = catalog.products
        var index: [ProductID: Int] = [:]
        index.reserveCapacity(catalog.products.count)
        for (position, product) in catalog.products.enumerated() { index[product.id] = position }
        self.positions = index
        var haystack: [UInt8] = []
        var starts: [Int] = []
        starts.reserveCapacity(catalog.products.count + 1)
        for product in catalog.products {
            starts.append(haystack.count)
            // Newlines cannot occur in names, summaries or tags, so no match spans two products.
            haystack.append(contentsOf: ([product.name, product.summary] + product.tags).joined(separator: " ").lowercased().utf8)
            haystack.append(0x0A)
        }
        starts.append(haystack.count)
        self.haystack = haystack
        self.starts = starts
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
            return Array(products[offset..<offset + min(products.count - offset, limit)])
        }
        let found = matches(for: terms)
        guard offset < found.count else { return [] }
        return found[offset..<offset + min(found.count - offset, limit)].map { products[Int($0)] }
    }

    public func product(id: ProductID) throws -> Product? {
        positions[id].map { products[$0] }
    }

    private static func terms(_ query: String) -> [[UInt8]] {
        query.lowercased().split(whereSeparator: \.isWhitespace).map { Array($0.utf8) }
    }

    private func matches(for terms: [[UInt8]]) -> [Int32] {
        if let cached = lastSearch.withLock({ $0 }), cached.query == terms { return cached.matches }
        let gramIndex = index.withLock { index in
            if let index { return index }
            let built = GramIndex(haystack: haystack, starts: starts)
            index = built
            return built
        }
        // Start from the term with the fewest candidates; check every term only where needed.
        let candidates = terms.map { gramIndex.candidates(for: $0) }
        guard let smallest = candidates.indices.min(by: { candidates[$0].products.count < candidates[$1].products.count }) else { return [] }
        let needsCheck = terms.count > 1 || !candidates[smallest].isExact
        let found =
            needsCheck
            ? candidates[smallest].products.filter { contains(product: Int($0), all: terms) }
            : candidates[smallest].products
        lastSearch.withLock { $0 = (terms, found) }
        return found
    }

    /// True when every term occurs in one product's text.
    private func contains(product: Int, all terms: some Collection<[UInt8]>) -> Bool {
        let start = starts[product]
        let end = starts[product + 1]
        return haystack.withUnsafeBufferPointer { hay in
            terms.allSatisfy { term in
                term.withUnsafeBufferPointer { needle in
                    guard let hayBase = hay.baseAddress, let needleBase = needle.baseAddress else { return term.isEmpty }
                    return Self.memmem(hayBase + start, end - start, needleBase, needle.count) != nil
                }
            }
        }
    }

    /// The first occurrence of `needle` in `haystack` (glibc hides its own `memmem` from Swift).
    /// `memchr` finds candidate first bytes at vector speed; `memcmp` confirms the rest.
    private static func memmem(_ haystack: UnsafePointer<UInt8>, _ count: Int, _ needle: UnsafePointer<UInt8>, _ length: Int) -> UnsafeRawPointer? {
        guard length > 0 else { return UnsafeRawPointer(haystack) }
        guard count >= length else { return nil }
        let first = Int32(needle[0])
        var cursor = haystack
        let last = haystack + (count - length)
        while cursor <= last {
            guard let found = memchr(cursor, first, last - cursor + 1) else { return nil }
            let candidate = UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
            if memcmp(candidate, needle, length) == 0 { return UnsafeRawPointer(candidate) }
            cursor = candidate + 1
        }
        return nil
    }
}

extension InMemoryCatalogRepository {
    /// The catalog the binary carries.
    public static func bundled() throws -> InMemoryCatalogRepository {
        InMemoryCatalogRepository(catalog: try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled catalog"))
    }
}

/// Which products contain each byte and each pair of adjacent bytes, as sorted product positions.
///
/// A term of one or two bytes is answered exactly from its list; a longer term starts from the
/// rarest of its pairs, so the work follows the size of the answer rather than of the catalog.
struct GramIndex: Sendable {
    struct Candidates {
        var products: [Int32]
        /// True when every candidate is a match, so no check against the text is needed.
        var isExact: Bool
    }

    private var singles: [[Int32]] = Array(repeating: [], count: 256)
    private var pairs: [[Int32]] = Array(repeating: [], count: 65_536)

    init(haystack: [UInt8], starts: [Int]) {
        for product in 0..<(starts.count - 1) {
            let id = Int32(product)
            var previous: UInt8? = nil
            for offset in starts[product]..<(starts[product + 1] - 1) {
                let byte = haystack[offset]
                // Products are visited in order, so a list's last entry tells whether this one is in it.
                if singles[Int(byte)].last != id { singles[Int(byte)].append(id) }
                if let previous {
                    let pair = Int(previous) << 8 | Int(byte)
                    if pairs[pair].last != id { pairs[pair].append(id) }
                }
                previous = byte
            }
        }
    }

    func candidates(for term: [UInt8]) -> Candidates {
        switch term.count {
        case 0: return Candidates(products: [], isExact: true)
        case 1: return Candidates(products: singles[Int(term[0])], isExact: true)
        default:
            var rarest = pairs[Int(term[0]) << 8 | Int(term[1])]
            for i in 1..<(term.count - 1) {
                let list = pairs[Int(term[i]) << 8 | Int(term[i + 1])]
                if list.count < rarest.count { rarest = list }
            }
            return Candidates(products: rarest, isExact: term.count == 2)
        }
    }
}

extension InMemoryCatalogRepository: LiveObject {}
