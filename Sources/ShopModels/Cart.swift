/// One product (or one variant of it) in the cart, priced at the moment it was added.
public struct CartLine: Hashable, Sendable, Identifiable {
    public static let quantityRange = 1...99

    public var productID: ProductID
    /// What the line is called wherever it is shown: the product's name, and the variant's values after " — ".
    public var name: String
    public var unitPrice: Money
    /// The unit price in the shop's own currency, where `unitPrice` is a market's conversion of it: the line is priced
    /// from it again when the cart moves to another market. Nil for the catalog's own price.
    public var basePrice: Money?
    public var quantity: Int
    /// The variant bought, for a product with options.
    public var variant: ChosenVariant?
    /// One unit's shipping weight in grams; 0 where the catalog gives none.
    public var unitGrams: Int

    /// The line's identity in a cart, and the stock it takes: the variant's SKU, or the product's id.
    public var id: ProductID { stockKey }
    public var stockKey: ProductID { variant?.sku ?? productID }

    public init(productID: ProductID, name: String, unitPrice: Money, quantity: Int, variant: ChosenVariant? = nil, unitGrams: Int = 0) {
        precondition(Self.quantityRange.contains(quantity), "quantity \(quantity) out of \(Self.quantityRange)")
        self.productID = productID
        self.name = name
        self.unitPrice = unitPrice
        self.quantity = quantity
        self.variant = variant
        self.unitGrams = max(0, unitGrams)
    }

    /// A line for one variant of `product`, named "Product — values".
    public init(product: Product, variant: ProductVariant?, quantity: Int) {
        guard let variant else {
            self.init(productID: product.id, name: product.name, unitPrice: product.price, quantity: quantity)
            basePrice = product.basePrice
            return
        }
        self.init(
            productID: product.id, name: Self.name(product.name, variant.title), unitPrice: variant.price, quantity: quantity,
            variant: ChosenVariant(sku: variant.sku, title: variant.title), unitGrams: variant.grams ?? 0)
        basePrice = variant.basePrice
    }

    /// A variant's line name: "root Hoodie — M".
    public static func name(_ product: String, _ variant: String) -> String { "\(product) — \(variant)" }

    public var total: Money { unitPrice * quantity }
}

/// The variant a cart or order line is for: its SKU and its option values as shown ("M", "Whole bean · 1 kg").
public struct ChosenVariant: Hashable, Sendable, Codable {
    public var sku: ProductID
    public var title: String

    public init(sku: ProductID, title: String) {
        self.sku = sku
        self.title = title
    }
}

extension Sequence<CartLine> {
    /// What the lines cost before shipping and tax: summed as they come, since a cart's is worked out on every add.
    public func subtotal(in currency: Currency) -> Money {
        reduce(.zero(currency)) { $0 + $1.total }
    }
}

/// The amounts that make up what a cart costs. `total` is always the subtotal and the shipping, less the discount, plus
/// the tax, but for tax included in prices, which is already in the other two.
public struct CartTotals: Hashable, Sendable {
    /// The goods at their prices, before any discount.
    public var subtotal: Money
    /// The shipping at its price, before any discount.
    public var shipping: Money
    /// Taken off by a discount code: off the goods and the shipping together. Tax is worked out after it.
    public var discount: Money
    public var tax: Money
    /// The tax is the part of the subtotal and shipping that is tax (VAT), not an amount added to them.
    public var taxIncluded: Bool
    public var total: Money { taxIncluded ? subtotal + shipping - discount : subtotal + shipping - discount + tax }

    public init(subtotal: Money, shipping: Money, tax: Money, taxIncluded: Bool = false, discount: Money? = nil) {
        self.subtotal = subtotal
        self.shipping = shipping
        self.discount = discount ?? .zero(subtotal.currency)
        self.tax = tax
        self.taxIncluded = taxIncluded
    }

    /// Totals as a stored order keeps them: minor units and a currency code (`fallback` when the code is unknown).
    public init(
        stored code: String, subtotal: Int64, shipping: Int64, tax: Int64, taxIncluded: Bool = false, discount: Int64 = 0, fallback: Currency
    ) {
        let currency = Currency(code: code) ?? fallback
        self.init(
            subtotal: Money(minorUnits: subtotal, currency: currency), shipping: Money(minorUnits: shipping, currency: currency),
            tax: Money(minorUnits: tax, currency: currency), taxIncluded: taxIncluded, discount: Money(minorUnits: discount, currency: currency)
        )
    }
}

/// The shopper's cart: lines in the order they were added, quantities kept within 1...99.
public struct Cart: Hashable, Sendable {
    public private(set) var lines: [CartLine] = []
    public let currency: Currency

    public init(currency: Currency, lines: [CartLine] = []) {
        self.currency = currency
        self.lines = lines
    }

    public var isEmpty: Bool { lines.isEmpty }
    public var itemCount: Int { lines.reduce(0) { $0 + $1.quantity } }
    public var subtotal: Money { lines.subtotal(in: currency) }

    /// What happened to a change of quantity, so the shopper can be told when a limit held.
    public enum Change: Equatable, Sendable { case changed, atMaximum, atMinimum, noSuchLine }

    /// Adds one unit of a product (of `variant`, or its default variant, for a product with options), or one more of a
    /// line already in the cart.
    @discardableResult
    public mutating func add(_ product: Product, variant: ProductVariant? = nil, quantity: Int = 1) -> Change {
        let line = CartLine(product: product, variant: variant ?? product.defaultVariant, quantity: min(max(quantity, 1), 99))
        if let index = lines.firstIndex(where: { $0.stockKey == line.stockKey }) {
            return setQuantity(at: index, to: lines[index].quantity + quantity)
        }
        lines.append(line)
        return .changed
    }

    /// Sets a line's quantity, clamped to 1...99; removing a line is a separate, explicit step.
    @discardableResult
    public mutating func setQuantity(at index: Int, to quantity: Int) -> Change {
        guard lines.indices.contains(index) else { return .noSuchLine }
        let range = CartLine.quantityRange
        if quantity > range.upperBound {
            let changed = lines[index].quantity != range.upperBound
            lines[index].quantity = range.upperBound
            return changed ? .changed : .atMaximum
        }
        if quantity < range.lowerBound { return .atMinimum }
        lines[index].quantity = quantity
        return .changed
    }

    public mutating func removeLine(at index: Int) {
        guard lines.indices.contains(index) else { return }
        lines.remove(at: index)
    }

    public mutating func removeAll() { lines.removeAll() }

    /// The line at `index` is sold at `price` now (the catalog's, read as the order is placed).
    public mutating func setUnitPrice(at index: Int, to price: Money) {
        guard price.currency == currency else { return }
        lines[index].unitPrice = price
    }

    /// The totals for this cart shipped with `shipping` under `tax`, less what `discount` takes off; the tax is worked
    /// out on what is paid after the discount.
    public func totals(shipping: ShippingMethod?, tax: TaxPolicy, discount: AppliedDiscount? = nil) -> CartTotals {
        let subtotal = self.subtotal
        let shipped = shipping?.cost(forSubtotal: subtotal) ?? .zero(currency)
        let offGoods = discount?.goods ?? .zero(currency)
        let offShipping = discount?.shipping ?? .zero(currency)
        return CartTotals(
            subtotal: subtotal, shipping: shipped, tax: tax.tax(goods: subtotal - offGoods, shipping: shipped - offShipping),
            taxIncluded: tax.isIncluded, discount: offGoods + offShipping)
    }

    /// What the lines weigh, in grams; a line whose weight the catalog does not give counts as nothing.
    public var grams: Int { lines.reduce(0) { $0 + $1.unitGrams * $1.quantity } }
}

extension Cart {
    /// The most this cart can cost: its subtotal and tax with the dearest of `shippingMethods`.
    public func highestTotal(shippingMethods: [ShippingMethod], tax: TaxPolicy) -> Money {
        let subtotal = self.subtotal
        // Lazily: every add asks, and mapping the methods into an array allocated one each time.
        let shipping = shippingMethods.lazy.map { $0.cost(forSubtotal: subtotal) }.max { $0.minorUnits < $1.minorUnits } ?? .zero(currency)
        return subtotal + shipping + (tax.isIncluded ? .zero(currency) : tax.tax(on: subtotal))
    }

    /// True when every line's price and quantity are valid and the cart costs at most `Money.maximumMinorUnits`
    /// whichever shipping method is chosen.
    public func isWithinMaximum(shippingMethods: [ShippingMethod], tax: TaxPolicy) -> Bool {
        lines.allSatisfy { $0.unitPrice.isWithinMaximum && CartLine.quantityRange.contains($0.quantity) }
            && highestTotal(shippingMethods: shippingMethods, tax: tax).isWithinMaximum
    }

    /// Keeps the lines, in order, that fit within the maximum and leaves out each one that would not; returns those.
    /// For carts that were not built through `add` (a saved cart, a guest cart merged at sign-in).
    public mutating func removeLinesOverMaximum(shippingMethods: [ShippingMethod], tax: TaxPolicy) -> [CartLine] {
        var kept = Cart(currency: currency)
        var left: [CartLine] = []
        for line in lines {
            var trial = kept
            trial.lines.append(line)
            if trial.isWithinMaximum(shippingMethods: shippingMethods, tax: tax) { kept = trial } else { left.append(line) }
        }
        lines = kept.lines
        return left
    }
}

extension Cart {
    /// Adds `other` lines (a guest's cart at sign-in) to this cart: quantities of the same product add up, to the limit.
    public mutating func merge(_ other: [CartLine]) {
        for line in other {
            if let index = lines.firstIndex(where: { $0.stockKey == line.stockKey }) {
                lines[index].quantity = min(CartLine.quantityRange.upperBound, lines[index].quantity + line.quantity)
            } else if line.unitPrice.currency == currency {
                lines.append(line)
            }
        }
    }
}
