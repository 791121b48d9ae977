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
    /// Small ASCII art, one string per line; empty when the product has none.
    public var art: [String]
    public var tags: [String]
    /// Units that can still be bought, where the shop tracks them; nil when it does not.
    /// In a catalog file this is the starting stock.
    public var stock: Int?

    public init(
        id: ProductID, name: String, summary: String, description: String,
        price: Money, art: [String] = [], tags: [String] = [], stock: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.summary = summary
        self.description = description
        self.price = price
        self.art = art
        self.tags = tags
        self.stock = stock
    }

    public var isSoldOut: Bool { stock == 0 }

    /// Stock at or below this is shown as "Only N left".
    public static let lowStockThreshold = 5

    /// Units left when they are few enough to say so (1 to `lowStockThreshold`); nil otherwise.
    public var fewLeft: Int? {
        guard let stock, stock > 0, stock <= Self.lowStockThreshold else { return nil }
        return stock
    }
}

extension Product {
    /// Art or tags as the databases keep them, lines joined by "\n": split back at every "\n" byte,
    /// as `components(separatedBy:)` did, without Foundation's bridging on every product read.
    public static func storedLines(_ text: String) -> [String] {
        text.isEmpty
            ? [] : text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
}
