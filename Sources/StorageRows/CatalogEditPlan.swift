import Foundation
import ShopModels
import ShopPorts

/// A row of `catalog_product`: the merchant's record of one product, whatever its status.
public struct CatalogProductRow: Hashable, Sendable {
    public var id: String
    /// Its place in the shop's order while published; nil otherwise.
    public var position: Int?
    public var status: ProductStatus
    public var version: Int
    /// The catalog file's product object, without stock.
    public var document: String
    public var updatedAt: Double
    public var updatedBy: String

    public init(id: String, position: Int?, status: ProductStatus, version: Int, document: String, updatedAt: Double, updatedBy: String) {
        self.id = id
        self.position = position
        self.status = status
        self.version = version
        self.document = document
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }

    /// The row as the merchant sees it; its name read from the document.
    public var editable: EditableProduct {
        let name = (try? JSONParser.parse(Array(document.utf8)))?.objectValue?["name"]?.stringValue ?? id
        return EditableProduct(
            id: ProductID(id), name: name, document: document, status: status, version: version,
            updatedAt: Date(timeIntervalSince1970: updatedAt), updatedBy: updatedBy)
    }
}

/// What an edit or an import comes to, the same on both databases: the rows after it (published ones numbered from 0
/// in the shop's order), the history it adds, and the catalog the shop sells from then on. The adapters read the rows
/// under the catalog's lock, write what this returns, and rebuild the shop's tables from `catalog` in one transaction.
public enum CatalogEditPlan {
    public struct Outcome: Sendable {
        public var rows: [CatalogProductRow]
        public var changed: CatalogProductRow
        public var entries: [CatalogHistoryEntry]
        public var catalog: Catalog
        /// The product as the edit wrote it (nil for a change of status).
        public var incoming: Product?
    }

    /// The rows of the catalog as the shop sells it, for a database whose catalog was never edited: version 1 each.
    public static func seed(_ products: [Product], at date: Date) -> [CatalogProductRow] {
        products.enumerated().map { position, product in
            CatalogProductRow(
                id: product.id.rawValue, position: position, status: .published, version: 1, document: document(product),
                updatedAt: date.timeIntervalSince1970, updatedBy: "import")
        }
    }

    /// The product's stored document: the catalog file's object, keys sorted, stock left out (it lives in `stock`).
    public static func document(_ product: Product) -> String {
        var bare = product
        bare.stock = nil
        bare.variants = bare.variants.map { variant in
            var variant = variant
            variant.stock = nil
            return variant
        }
        let object = CatalogWriter.product(bare, stock: { _ in nil })
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Applies `edit` to `rows` (every row, in any order) for `shop`; throws what stops it.
    public static func apply(_ edit: CatalogEdit, to rows: [CatalogProductRow], shop: ShopProfile, at date: Date) throws(CatalogEditError)
        -> Outcome
    {
        var rows = rows
        let id = edit.productID.rawValue
        let index = rows.firstIndex { $0.id == id }
        let stamp = date.timeIntervalSince1970
        var incoming: Product?
        var action: String
        switch edit.change {
        case .create(let text):
            guard index == nil else { throw .alreadyExists(edit.productID) }
            incoming = try validated(text, id: id, rows: rows, shop: shop)
            action = "create"
            rows.append(
                CatalogProductRow(
                    id: id, position: Int.max, status: .published, version: 1, document: "", updatedAt: stamp, updatedBy: edit.actor))
        case .update(let text):
            guard let index else { throw .noSuchProduct(edit.productID) }
            try check(rows[index], against: edit)
            incoming = try validated(text, id: id, rows: rows.filter { $0.id != id }, shop: shop)
            action = "update"
            rows[index].version += 1
        case .setStatus(let status):
            guard let index else { throw .noSuchProduct(edit.productID) }
            try check(rows[index], against: edit)
            action = status == .published ? "publish" : status == .unpublished ? "unpublish" : "archive"
            if rows[index].status != .published, status == .published { rows[index].position = Int.max }
            rows[index].status = status
            rows[index].version += 1
        }
        guard let changedIndex = rows.firstIndex(where: { $0.id == id }) else { throw .noSuchProduct(edit.productID) }
        if let incoming { rows[changedIndex].document = document(incoming) }
        rows[changedIndex].updatedAt = stamp
        rows[changedIndex].updatedBy = edit.actor
        rows = numbered(rows)
        let catalog = try published(rows, shop: shop, replacing: incoming)
        let changed = rows.first { $0.id == id } ?? rows[changedIndex]
        return Outcome(
            rows: rows, changed: changed,
            entries: [CatalogHistoryEntry(productID: edit.productID, version: changed.version, action: action, actor: edit.actor, at: date)],
            catalog: catalog, incoming: incoming)
    }

    /// The pictures a stored document names, its variants' too: each kept one by its digest, one never read (a file
    /// name alone, as a catalog imported without its pictures' files leaves it) by its file.
    public static func pictureDigests(in document: String) -> Set<String> {
        guard let product = (try? JSONParser.parse(Array(document.utf8)))?.objectValue else { return [] }
        func digests(_ value: JSONValue?) -> [String] {
            value?.arrayValue?.compactMap { $0.stringValue ?? $0.objectValue?["sha256"]?.stringValue } ?? []
        }
        let variants = product["variants"]?.arrayValue ?? []
        return Set(digests(product["pictures"]) + variants.flatMap { digests($0.objectValue?["pictures"]) })
    }

    /// The pictures `product` names that are not in `held` (digests, and the files of pictures named but never read),
    /// each as `pictures[0]: …` or `variants[1].pictures[0]: …`: an edit names kept pictures only (uploaded first, or
    /// from an imported file).
    public static func picturesNotHeld(by product: Product, held: Set<String>) -> [String] {
        func missing(_ pictures: [PictureReference], at path: String) -> [String] {
            pictures.enumerated().compactMap { index, picture in
                held.contains(picture.isStored ? picture.digest : picture.file)
                    ? nil
                    : "\(path)pictures[\(index)]: \(picture.file): no such picture in the shop; upload it first "
                        + "(POST /v1/merchant/pictures, or `storefront catalog picture FILE`)"
            }
        }
        return missing(product.pictures, at: "")
            + product.variants.enumerated().flatMap { index, variant in missing(variant.pictures, at: "variants[\(index)].") }
    }

    /// A catalog file imported over edited rows: its products published in its order (a version more where the
    /// document changed or the product was not published), every other published product unpublished.
    public static func importing(_ catalog: Catalog, rows: [CatalogProductRow], actor: String, at date: Date) -> (
        rows: [CatalogProductRow], entries: [CatalogHistoryEntry]
    ) {
        var byID = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) })
        var entries: [CatalogHistoryEntry] = []
        let listed = Set(catalog.products.map(\.id.rawValue))
        for (position, product) in catalog.products.enumerated() {
            let text = document(product)
            var row =
                byID[product.id.rawValue]
                ?? CatalogProductRow(
                    id: product.id.rawValue, position: nil, status: .unpublished, version: 0, document: "", updatedAt: 0, updatedBy: "")
            if row.document != text || row.status != .published {
                row.version += 1
                row.document = text
                row.status = .published
                row.updatedAt = date.timeIntervalSince1970
                row.updatedBy = actor
                entries.append(CatalogHistoryEntry(productID: product.id, version: row.version, action: "import", actor: actor, at: date))
            }
            row.position = position
            byID[row.id] = row
        }
        for (id, row) in byID where row.status == .published && !listed.contains(id) {
            var row = row
            row.status = .unpublished
            row.position = nil
            row.version += 1
            row.updatedAt = date.timeIntervalSince1970
            row.updatedBy = actor
            byID[id] = row
            entries.append(CatalogHistoryEntry(productID: ProductID(id), version: row.version, action: "import", actor: actor, at: date))
        }
        return (numbered(Array(byID.values)), entries.sorted { $0.productID.rawValue < $1.productID.rawValue })
    }

    /// The published rows numbered from 0 in their order (a row just published, at `Int.max`, last); the rest with no
    /// position, by id.
    static func numbered(_ rows: [CatalogProductRow]) -> [CatalogProductRow] {
        let published = rows.filter { $0.status == .published }.sorted { ($0.position ?? .max, $0.id) < ($1.position ?? .max, $1.id) }
        let others = rows.filter { $0.status != .published }.sorted { $0.id < $1.id }
        return published.enumerated().map { position, row in
            var row = row
            row.position = position
            return row
        }
            + others.map { row in
                var row = row
                row.position = nil
                return row
            }
    }

    private static func check(_ row: CatalogProductRow, against edit: CatalogEdit) throws(CatalogEditError) {
        guard let expected = edit.expectedVersion, expected == row.version else {
            throw .changedMeanwhile(ProductID(row.id), now: row.version, by: row.updatedBy)
        }
    }

    /// The product `text` describes, checked as `catalog validate` checks a file, beside every other product
    /// (their SKUs too): nil never, a problem throws.
    private static func validated(_ text: String, id: String, rows: [CatalogProductRow], shop: ShopProfile) throws(CatalogEditError) -> Product {
        guard let value = try? JSONParser.parse(Array(text.utf8)), let fields = value.objectValue else {
            throw .invalid(["The product must be a JSON object in the catalog file's format (docs/catalog.md)."])
        }
        guard CatalogLoader.productID(fields["id"]) == id else { throw .invalid(["id: must be \(id), the product's id."]) }
        // Last, so a SKU it shares with another product is told on it, not on the other.
        let documents = rows.map(\.document) + [text]
        let at = "$.products[\(documents.count - 1)]"
        let source = "{\"store\": \(shop.storedJSON), \"products\": [\(documents.joined(separator: ", "))]}"
        do {
            let catalog = try CatalogLoader.load(data: Data(source.utf8), source: "the product")
            guard let product = catalog.products.last else { throw CatalogEditError.invalid(["The product could not be read."]) }
            return product
        } catch let error as CatalogError {
            // Its own problems, named by field, not by place in a file.
            let own = error.issues.filter { $0.path.hasPrefix(at) }
            throw .invalid(
                (own.isEmpty
                    ? error.issues.map(\.description)
                    : own.map { issue in
                        let field = issue.path.replacingOccurrences(of: at + ".", with: "").replacingOccurrences(of: at, with: "product")
                        return "\(field): \(issue.message)"
                    }))
        } catch let error as CatalogEditError {
            throw error
        } catch {
            throw .invalid(["\(error)"])
        }
    }

    /// The shop's catalog: the published rows in order, `replacing` read from the edit (it carries its first stock).
    private static func published(_ rows: [CatalogProductRow], shop: ShopProfile, replacing: Product?) throws(CatalogEditError) -> Catalog {
        let published = rows.filter { $0.status == .published }
        guard !published.isEmpty else { return Catalog(shop: shop, products: []) }
        let source = "{\"store\": \(shop.storedJSON), \"products\": [\(published.map(\.document).joined(separator: ", "))]}"
        do {
            var catalog = try CatalogLoader.load(data: Data(source.utf8), source: "the catalog")
            if let replacing, let at = catalog.products.firstIndex(where: { $0.id == replacing.id }) { catalog.products[at] = replacing }
            return catalog
        } catch let error as CatalogError {
            // A product published again whose SKU another took meanwhile, say.
            throw .invalid(error.issues.map(\.description))
        } catch {
            throw .invalid(["\(error)"])
        }
    }
}
