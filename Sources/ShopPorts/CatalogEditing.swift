import Foundation
import ShopModels

/// Where a product stands in the merchant's catalog: sold, kept out of the shop for now, or retired for good.
public enum ProductStatus: String, Hashable, Sendable, CaseIterable {
    /// In the shop.
    case published
    /// Out of the shop until it is published again.
    case unpublished
    /// Out of the shop for good; its orders keep their lines. Publishing brings it back.
    case archived
}

/// A product as the merchant edits it: its document in the catalog file's format, where it stands and its version.
public struct EditableProduct: Hashable, Sendable {
    public var id: ProductID
    public var name: String
    /// The product as the catalog file writes it (`CatalogWriter`), without stock.
    public var document: String
    public var status: ProductStatus
    /// Raised by every change; an edit names the version it was made against.
    public var version: Int
    public var updatedAt: Date
    public var updatedBy: String

    public init(id: ProductID, name: String, document: String, status: ProductStatus, version: Int, updatedAt: Date, updatedBy: String) {
        self.id = id
        self.name = name
        self.document = document
        self.status = status
        self.version = version
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }
}

/// One change a merchant makes to the catalog, against the version they saw.
public struct CatalogEdit: Hashable, Sendable {
    public enum Change: Hashable, Sendable {
        /// A new product from its document (the catalog file's product object; its `stock` is the units on hand).
        case create(document: String)
        /// The product's document replaced: names, texts, price, art, tags, options and variants.
        case update(document: String)
        case setStatus(ProductStatus)
    }

    public var productID: ProductID
    public var change: Change
    /// The version the merchant saw; nil for a create.
    public var expectedVersion: Int?
    /// Who makes it: `local:NAME`, `ssh:SHA256:…`, `token:…`.
    public var actor: String

    public init(productID: ProductID, change: Change, expectedVersion: Int?, actor: String) {
        self.productID = productID
        self.change = change
        self.expectedVersion = expectedVersion
        self.actor = actor
    }
}

/// One line of the catalog's history: who changed which product, how, and to which version.
public struct CatalogHistoryEntry: Hashable, Sendable {
    public var productID: ProductID
    public var version: Int
    /// `create`, `update`, `publish`, `unpublish`, `archive`, or `import` (a catalog file).
    public var action: String
    public var actor: String
    public var at: Date

    public init(productID: ProductID, version: Int, action: String, actor: String, at: Date) {
        self.productID = productID
        self.version = version
        self.action = action
        self.actor = actor
        self.at = at
    }
}

/// Why an edit was not made; nothing was written.
public enum CatalogEditError: Error, Hashable, Sendable {
    /// Someone changed the product since the version the edit was made against.
    case changedMeanwhile(ProductID, now: Int, by: String)
    case noSuchProduct(ProductID)
    case alreadyExists(ProductID)
    /// The product's problems, one line each, as `catalog validate` words them.
    case invalid([String])
    case storage(String)

    public var message: String {
        switch self {
        case .changedMeanwhile(let id, let now, let by):
            "\(id) changed meanwhile (now version \(now), by \(by)): nothing was saved. Read it again and make the change on that."
        case .noSuchProduct(let id): "No product has the id \(id)."
        case .alreadyExists(let id): "A product with the id \(id) exists already."
        case .invalid(let problems): problems.joined(separator: " ")
        case .storage(let message): message
        }
    }
}

/// The merchant's side of the catalog: every product whatever its status, changed one edit at a time with a version
/// check, each change in the history, and the shop's catalog rebuilt from the published ones in the same transaction.
public protocol CatalogEditing: Sendable {
    /// Every product: the published in the shop's order, then the rest by id.
    func products() async throws -> [EditableProduct]
    /// Applies `edit` at `date`; returns the product as it now stands.
    func apply(_ edit: CatalogEdit, at date: Date) async throws(CatalogEditError) -> EditableProduct
    /// The newest `limit` changes, of one product or of all.
    func history(of productID: ProductID?, limit: Int) async throws -> [CatalogHistoryEntry]
}
