import StoreModels

/// Pages products out of wherever the catalog lives, so no screen ever holds the whole catalog.
///
/// Reads are synchronous on purpose: they are local and bounded by `limit`, and the view model
/// answers a keystroke with one frame. Ports that cross a network are `async`.
public protocol CatalogRepository: Sendable {
    /// The merchant profile that came with the catalog.
    var store: StoreProfile { get }
    /// How many products match `query` (all of them when it is empty).
    func count(matching query: String) throws -> Int
    /// At most `limit` matching products, starting at `offset`, in catalog order.
    func page(matching query: String, offset: Int, limit: Int) throws -> [Product]
    /// One product by id, or nil when there is none.
    func product(id: ProductID) throws -> Product?
}

/// Past orders, newest first.
public protocol OrderHistory: Sendable {
    func count() throws -> Int
    func orders(offset: Int, limit: Int) throws -> [Order]
    func order(number: String) throws -> Order?
}

/// A storage failure that the shopper should be told about in plain words.
public struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
