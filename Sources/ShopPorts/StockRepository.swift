import ShopModels

/// One product's stock: on hand (free to sell), reserved by charges under way, and sold.
public struct StockLevel: Hashable, Sendable {
    public var productID: ProductID
    public var name: String
    public var onHand: Int
    public var reserved: Int
    public var sold: Int

    public init(productID: ProductID, name: String, onHand: Int, reserved: Int, sold: Int) {
        self.productID = productID
        self.name = name
        self.onHand = onHand
        self.reserved = reserved
        self.sold = sold
    }
}

extension StockLevel {
    /// The most a product may have on hand, as a catalog may start with: far from overflowing any sum of counts.
    public static let maximumOnHand = Int(CatalogLoader.maximumStock)

    /// `onHand` set by hand, or why not: checked before it reaches any store.
    public static func checked(onHand: Int, of product: ProductID) throws(StockChangeError) -> Int {
        guard onHand >= 0 else { throw .negativeCount(product, asked: onHand) }
        guard onHand <= maximumOnHand else { throw .aboveMaximum(product, asked: onHand) }
        return onHand
    }

    /// What `onHand` becomes after `change`, or why not: the change is bounded before the sum is made, so no count
    /// from outside overflows.
    public static func checked(onHand: Int, changedBy change: Int, of product: ProductID) throws(StockChangeError) -> Int {
        guard (-maximumOnHand...maximumOnHand).contains(change) else { throw .aboveMaximum(product, asked: change) }
        let next = onHand + change
        guard next >= 0 else { throw .belowZero(product, onHand: onHand, change: change) }
        guard next <= maximumOnHand else { throw .aboveMaximum(product, asked: next) }
        return next
    }
}

/// Why a stock change was not made; nothing was written.
public enum StockChangeError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownProduct(ProductID)
    /// The change would leave less than nothing on hand.
    case belowZero(ProductID, onHand: Int, change: Int)
    /// A count on hand below zero was asked for (a count, not a change).
    case negativeCount(ProductID, asked: Int)
    /// The count asked for, or the change, is more than a shelf holds (`StockLevel.maximumOnHand`).
    case aboveMaximum(ProductID, asked: Int)
    case storage(String)

    public var description: String {
        switch self {
        case .unknownProduct(let id): "There is no product \(id.rawValue) in the catalog."
        case .belowZero(let id, let onHand, let change):
            "\(id.rawValue) has \(onHand) on hand: taking \(-change) would leave less than none."
        case .negativeCount(let id, let asked):
            "\(id.rawValue): a count on hand is 0 or more, not \(asked); to take some away, use storefront stock adjust \(id.rawValue) --by \(asked)."
        case .aboveMaximum(let id, let asked):
            "\(id.rawValue): \(asked) is beyond what the shop counts; on hand and each change are at most \(StockLevel.maximumOnHand)."
        case .storage(let why): "The stock could not be changed: \(why)"
        }
    }
}

/// The merchant's side of stock: counts read and changed by hand, beside what orders reserve and sell.
public protocol StockRepository: Sendable {
    /// Every product in the catalog with its stock, fewest on hand first.
    func stockLevels() async throws -> [StockLevel]
    /// Sets what is on hand (a count taken on the shelf); reserved and sold stay.
    func setStock(of product: ProductID, onHand: Int) async throws(StockChangeError) -> StockLevel
    /// Adds `change` (negative takes away) to what is on hand, in one statement: two adjustments never lose one.
    func adjustStock(of product: ProductID, by change: Int) async throws(StockChangeError) -> StockLevel
}
