import LiveObjects
import ShopBootstrap
import ShopModels
import ShopPorts
import Synchronization
import Testing

/// A worker's sessions share the copies of the products they read, and never see an older copy than the catalog's.
@Suite("Catalog reads shared by a worker's sessions")
struct SharedCatalogReadsTests {
    @Test("two sessions reading the same page hold one copy of it and of its products' text")
    func samePageIsOneCopy() async throws {
        let base = FreshCopiesCatalog(products: (1...30).map(Self.product))
        let shared = SharedCatalogReads(base)
        let first = try await shared.page(matching: "", offset: 0, limit: 20)
        let second = try await shared.page(matching: "", offset: 0, limit: 20)
        #expect(first == second)
        #expect(base.reads == 2, "every read still asks the catalog")
        #expect(Self.storage(of: first) == Self.storage(of: second))
        // A page of other bounds is a copy of its own, made of the products already held.
        let overlapping = try await shared.page(matching: "", offset: 10, limit: 20)
        #expect(Self.storage(of: overlapping) != Self.storage(of: first))
        #expect(Self.text(of: overlapping[0].description) == Self.text(of: first[10].description))
        let detail = try #require(try await shared.product(id: first[3].id))
        #expect(Self.text(of: detail.description) == Self.text(of: first[3].description))
    }

    @Test("a product that changed is answered as it is now, and its new copy is the one shared")
    func aChangeIsSeenAtOnce() async throws {
        let base = FreshCopiesCatalog(products: (1...5).map(Self.product))
        let shared = SharedCatalogReads(base)
        let before = try await shared.page(matching: "", offset: 0, limit: 5)
        base.change { $0[2].stock = 0 }
        let after = try await shared.page(matching: "", offset: 0, limit: 5)
        #expect(after[2].stock == 0)
        #expect(before[2].stock == 9)
        #expect(try await shared.product(id: after[2].id)?.stock == 0)
        // The products that did not change are still the copies the first page holds.
        #expect(Self.text(of: after[1].description) == Self.text(of: before[1].description))
        let again = try await shared.page(matching: "", offset: 0, limit: 5)
        #expect(Self.storage(of: again) == Self.storage(of: after))
    }

    @Test("a missing product is nil, and counts go to the catalog")
    func missingAndCounts() async throws {
        let base = FreshCopiesCatalog(products: (1...3).map(Self.product))
        let shared = SharedCatalogReads(base)
        #expect(try await shared.product(id: "nope") == nil)
        #expect(try await shared.count(matching: "") == 3)
        #expect(shared.shop == base.shop)
    }

    static func product(_ number: Int) -> Product {
        Product(
            id: ProductID("p\(number)"), name: "A product with a long enough name #\(number)",
            summary: "A summary long enough to be stored on the heap", description: "A description of product \(number), long enough too",
            price: Money(minorUnits: Int64(1000 + number), currency: .usd), stock: 9)
    }

    /// Where an array's elements are: equal for two arrays sharing one buffer.
    static func storage(of page: [Product]) -> UnsafeRawPointer? { page.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }

    /// Where a native string's bytes are: equal for two strings sharing one buffer.
    static func text(of string: String) -> UnsafeRawPointer? {
        var string = string
        return string.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }
}

/// A catalog that decodes fresh copies for every read, as a database does: nothing is shared unless the reads share it.
private final class FreshCopiesCatalog: CatalogRepository, LiveObject {
    private let stored: Mutex<(products: [Product], reads: Int)>
    let shop = ShopProfile.standard()

    init(products: [Product]) { stored = Mutex((products, 0)) }

    var reads: Int { stored.withLock { $0.reads } }
    func change(_ edit: (inout [Product]) -> Void) { stored.withLock { edit(&$0.products) } }

    func count(matching query: String) async throws -> Int { stored.withLock { $0.products.count } }

    func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        stored.withLock { stored in
            stored.reads += 1
            return stored.products.dropFirst(offset).prefix(limit).map(Self.copy)
        }
    }

    func product(id: ProductID) async throws -> Product? { stored.withLock { $0.products.first { $0.id == id }.map(Self.copy) } }

    private static func copy(_ product: Product) -> Product {
        var copy = product
        copy.name = String(decoding: Array(product.name.utf8), as: UTF8.self)
        copy.summary = String(decoding: Array(product.summary.utf8), as: UTF8.self)
        copy.description = String(decoding: Array(product.description.utf8), as: UTF8.self)
        return copy
    }
}
