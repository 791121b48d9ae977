import Foundation
import LiveObjects
import ShopModels
import ShopPorts
import StorefrontCore
import Synchronization

/// A catalog that counts reads and the largest page asked for, to prove screens hold only a window.
public final class CatalogRepositorySpy: CatalogRepository {
    private let base: any CatalogRepository
    private let stats = Mutex<(pages: Int, largestLimit: Int, counts: Int)>((0, 0, 0))

    public init(wrapping base: any CatalogRepository) { self.base = base }

    public var shop: ShopProfile { base.shop }
    public var pageReads: Int { stats.withLock { $0.pages } }
    public var largestLimit: Int { stats.withLock { $0.largestLimit } }
    public var countReads: Int { stats.withLock { $0.counts } }

    public func count(matching query: String) async throws -> Int {
        stats.withLock { $0.counts += 1 }
        return try await base.count(matching: query)
    }

    public func page(matching query: String, offset: Int, limit: Int) async throws -> [Product] {
        stats.withLock {
            $0.pages += 1
            $0.largestLimit = max($0.largestLimit, limit)
        }
        return try await base.page(matching: query, offset: offset, limit: limit)
    }

    public func product(id: ProductID) async throws -> Product? { try await base.product(id: id) }
}

extension CatalogRepositorySpy: LiveObject {}
