/// A product identifier as written in the catalog ("lamp-aurora").
public struct ProductID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (lhs: ProductID, rhs: ProductID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Catalogs from other tools number their products; both spellings name the same id.
        if let number = try? container.decode(Int.self) {
            rawValue = String(number)
        } else {
            rawValue = try container.decode(String.self)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// Something the shop sells.
public struct Product: Hashable, Sendable, Identifiable {
    public var id: ProductID
    public var name: String
    public var summary: String
    public var description: String
    public var price: Money
    /// The price in the shop's own currency, where `price` is a market's conversion of it: a cart moving to another
    /// market is priced from it. Nil where `price` is the catalog's own.
    public var basePrice: Money?
    /// Small ASCII art, one string per line; empty when the product has none.
    public var art: [String]
    public var tags: [String]
    /// Units that can still be bought, where the shop tracks them; nil when it does not.
    /// In a catalog file this is the starting stock. For a product with variants, the sum of theirs.
    public var stock: Int?
    /// What the shopper chooses (Size; Grind, Weight), at most three; empty for a product sold as one item.
    public var options: [ProductOption]
    /// One per combination the shop sells, in catalog order; empty when `options` is.
    public var variants: [ProductVariant]
    /// The intervals, in weeks, it is sold as a subscription at (ascending); empty when it is not.
    public var subscriptionWeeks: [Int]
    /// Its pictures, the first shown first; a variant's own replace them while it is chosen.
    public var pictures: [PictureReference]

    public init(
        id: ProductID, name: String, summary: String, description: String,
        price: Money, art: [String] = [], tags: [String] = [], stock: Int? = nil,
        options: [ProductOption] = [], variants: [ProductVariant] = [], subscriptionWeeks: [Int] = [], pictures: [PictureReference] = []
    ) {
        self.pictures = pictures
        self.subscriptionWeeks = subscriptionWeeks
        self.id = id
        self.name = name
        self.summary = summary
        self.description = description
        self.price = price
        self.art = art
        self.tags = tags
        self.stock = stock
        self.options = options
        self.variants = variants
    }

    public var isSoldOut: Bool { stock == 0 }

    /// The pictures to show with `variant` chosen: its own, else the product's.
    public func pictures(for variant: ProductVariant?) -> [PictureReference] {
        guard let own = variant?.pictures, !own.isEmpty else { return pictures }
        return own
    }

    /// True when the shopper picks a variant before adding it to the cart.
    public var hasVariants: Bool { !variants.isEmpty }

    /// The dearest variant's price when variants differ in price, so the list can say "from" the cheapest (`price`).
    public var highestPrice: Money? {
        guard let highest = variants.map(\.price).max(by: { $0.minorUnits < $1.minorUnits }), highest != price else { return nil }
        return highest
    }

    /// The variant with exactly these option values, one per option in order.
    public func variant(values: [String]) -> ProductVariant? { variants.first { $0.values == values } }

    /// The variant a shopper gets without choosing: the first one in stock, else the first.
    public var defaultVariant: ProductVariant? { variants.first { !$0.isSoldOut } ?? variants.first }

    /// The product as one of its variants is bought: that variant alone, with its price and stock.
    public func narrowed(to variant: ProductVariant) -> Product {
        var product = self
        product.variants = [variant]
        product.price = variant.price
        product.basePrice = variant.basePrice
        product.stock = variant.stock
        return product
    }

    /// What a purchase of this product is: itself, or its default variant when the shopper did not choose one.
    public var purchasable: Product {
        guard variants.count > 1, let variant = defaultVariant else { return self }
        return narrowed(to: variant)
    }

    /// Where a purchase of this product takes its stock: its one variant's SKU, or its id.
    public var stockKey: ProductID { variants.count == 1 ? variants[0].sku : id }

    /// The stock kept under `key`: this product's, or one of its variants'.
    public func stock(of key: ProductID) -> Int? {
        key == id ? stock : variants.first { $0.sku == key }?.stock
    }

    /// Stock at or below this is shown as "Only N left".
    public static let lowStockThreshold = 5

    /// Units left when they are few enough to say so (1 to `lowStockThreshold`); nil otherwise.
    public var fewLeft: Int? {
        guard let stock, stock > 0, stock <= Self.lowStockThreshold else { return nil }
        return stock
    }
}

/// One choice a product offers, with the values a shopper picks from in catalog order ("Size": S, M, L, XL).
public struct ProductOption: Hashable, Sendable, Codable {
    public var name: String
    public var values: [String]

    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }

    /// Most options a product has, as Shopify allows.
    public static let maximumCount = 3
}

/// One combination of a product's option values that the shop sells, with its own SKU, price, stock and weight.
public struct ProductVariant: Hashable, Sendable, Identifiable {
    /// Unique in the catalog and apart from every product id: the stock a purchase takes is kept under it.
    public var sku: ProductID
    /// One value per option of the product, in the options' order.
    public var values: [String]
    public var price: Money
    /// The price in the shop's own currency, where `price` is a market's conversion of it.
    public var basePrice: Money?
    /// Units left, where tracked; nil when the shop does not count them.
    public var stock: Int?
    /// Shipping weight in grams, where given.
    public var grams: Int?
    /// Its own pictures, shown instead of the product's while it is chosen; empty to show the product's.
    public var pictures: [PictureReference]

    public var id: ProductID { sku }

    public init(sku: ProductID, values: [String], price: Money, stock: Int? = nil, grams: Int? = nil, pictures: [PictureReference] = []) {
        self.pictures = pictures
        self.sku = sku
        self.values = values
        self.price = price
        self.stock = stock
        self.grams = grams
    }

    public var isSoldOut: Bool { stock == 0 }

    /// The values as a shopper reads them: "M", "Whole bean · 1 kg".
    public var title: String { values.joined(separator: " · ") }
}

extension Product {
    /// Art or tags as the databases keep them, lines joined by "\n": split back at every "\n" byte,
    /// as `components(separatedBy:)` did, without Foundation's bridging on every product read.
    public static func storedLines(_ text: String) -> [String] {
        text.isEmpty
            ? [] : text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
}
