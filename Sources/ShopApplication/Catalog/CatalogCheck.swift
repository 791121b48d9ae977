import ShopModels
import ShopPorts

/// What the catalog says, as an order is placed, of the lines the buyer saw: whether each is still sold, and at what
/// price. Every front asks it before drafting a buyer's order (a cart keeps the price it was put in at; the catalog's
/// is the one charged), so no front charges yesterday's price or sells a product the merchant withdrew.
public enum CatalogCheck {
    public enum Verdict: Equatable, Sendable {
        /// Every line is sold, at the price the buyer saw.
        case unchanged
        /// Every line is sold, some at another price now: `lines` at today's prices, and each change, for the buyer
        /// to confirm again.
        case repriced(lines: [CartLine], changes: [PriceChange])
        /// Some lines are no longer sold (a product unpublished or archived, a variant edited out), by name.
        case withdrawn([String])

        /// The words for the buyer; nil when nothing changed.
        public var line: String? {
            switch self {
            case .unchanged: nil
            case .repriced(_, let changes):
                "The price changed since you saw it: \(changes.map(\.line).joined(separator: "; ")). Check the new total and pay again."
            case .withdrawn(let names):
                "\(names.joined(separator: ", ")) \(names.count == 1 ? "is" : "are") no longer sold: remove \(names.count == 1 ? "it" : "them") from the cart to pay for the rest."
            }
        }
    }

    /// One line's price, as the buyer saw it and as the catalog sells it now.
    public struct PriceChange: Equatable, Sendable {
        /// The cart line's identity (its variant's SKU, or the product's id).
        public var stockKey: ProductID
        public var name: String
        public var was: Money
        public var now: Money

        /// "Canvas Tote: $99.00 each, was $64.00".
        public var line: String { "\(name): \(now.formatted) each, was \(was.formatted)" }
    }

    /// What a cart shown to its shopper should mark and update: the stock keys of `lines` the catalog no longer sells (a
    /// product unpublished or archived, a variant edited out), and the lines it sells at another price now.
    public struct CartReview: Equatable, Sendable {
        public var withdrawn: Set<ProductID> = []
        public var changes: [PriceChange] = []
        /// Each line's picture by its stock key, where it has one: the variant's own, else the product's first.
        public var pictures: [ProductID: PictureReference] = [:]
        public init(withdrawn: Set<ProductID> = [], changes: [PriceChange] = [], pictures: [ProductID: PictureReference] = [:]) {
            self.withdrawn = withdrawn
            self.changes = changes
            self.pictures = pictures
        }
    }

    /// `lines` against `catalog` now, for the fronts to mark and reprice in the cart before the buyer reaches Pay.
    public static func review(_ lines: [CartLine], in catalog: any CatalogRepository) async throws -> CartReview {
        var review = CartReview()
        for line in lines {
            guard let (price, picture) = try await sold(line, in: catalog) else {
                review.withdrawn.insert(line.stockKey)
                continue
            }
            if price != line.unitPrice {
                review.changes.append(PriceChange(stockKey: line.stockKey, name: line.name, was: line.unitPrice, now: price))
            }
            if let picture { review.pictures[line.stockKey] = picture }
        }
        return review
    }

    /// What the catalog sells `line` at now, and its picture (kept ones only); nil when it no longer sells it.
    static func sold(_ line: CartLine, in catalog: any CatalogRepository) async throws -> (Money, PictureReference?)? {
        guard let product = try await catalog.product(id: line.productID) else { return nil }
        if let chosen = line.variant {
            guard let variant = product.variants.first(where: { $0.sku == chosen.sku }) else { return nil }
            return (variant.price, product.pictures(for: variant).first { $0.isStored })
        }
        // A product that has variants now is bought as one of them: the plain line is no longer sold.
        return product.variants.isEmpty ? (product.price, product.pictures.first { $0.isStored }) : nil
    }

    /// `lines` against `catalog` now: withdrawn lines first, then prices.
    public static func lines(_ lines: [CartLine], in catalog: any CatalogRepository) async throws -> Verdict {
        var withdrawn: [String] = []
        var current: [CartLine] = []
        var changes: [PriceChange] = []
        for line in lines {
            guard let (price, _) = try await sold(line, in: catalog) else {
                withdrawn.append(line.name)
                continue
            }
            var now = line
            if price != line.unitPrice {
                now.unitPrice = price
                changes.append(PriceChange(stockKey: line.stockKey, name: line.name, was: line.unitPrice, now: price))
            }
            current.append(now)
        }
        if !withdrawn.isEmpty { return .withdrawn(withdrawn) }
        return changes.isEmpty ? .unchanged : .repriced(lines: current, changes: changes)
    }
}
