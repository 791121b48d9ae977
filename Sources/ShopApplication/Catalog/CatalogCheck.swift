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
        public init(withdrawn: Set<ProductID> = [], changes: [PriceChange] = []) {
            self.withdrawn = withdrawn
            self.changes = changes
        }
    }

    /// `lines` against `catalog` now, for the fronts to mark and reprice in the cart before the buyer reaches Pay.
    public static func review(_ lines: [CartLine], in catalog: any CatalogRepository) async throws -> CartReview {
        var review = CartReview()
        for line in lines {
            guard let price = try await price(of: line, in: catalog) else {
                review.withdrawn.insert(line.stockKey)
                continue
            }
            if price != line.unitPrice {
                review.changes.append(PriceChange(stockKey: line.stockKey, name: line.name, was: line.unitPrice, now: price))
            }
        }
        return review
    }

    /// What the catalog sells `line` at now; nil when it no longer sells it.
    static func price(of line: CartLine, in catalog: any CatalogRepository) async throws -> Money? {
        guard let product = try await catalog.product(id: line.productID) else { return nil }
        if let chosen = line.variant { return product.variants.first { $0.sku == chosen.sku }?.price }
        // A product that has variants now is bought as one of them: the plain line is no longer sold.
        return product.variants.isEmpty ? product.price : nil
    }

    /// `lines` against `catalog` now: withdrawn lines first, then prices.
    public static func lines(_ lines: [CartLine], in catalog: any CatalogRepository) async throws -> Verdict {
        var withdrawn: [String] = []
        var current: [CartLine] = []
        var changes: [PriceChange] = []
        for line in lines {
            guard let price = try await price(of: line, in: catalog) else {
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
