import Foundation
import ShopLanguages

/// A discount code as the merchant made it: what it takes off, and when and for whom it holds.
public struct DiscountCode: Hashable, Sendable, Codable {
    /// What a code takes off.
    public enum Kind: Hashable, Sendable, Codable {
        /// A share of the goods it applies to, in hundredths of a percent (1 to 10,000).
        case percentage(basisPoints: Int)
        /// An amount off the goods it applies to, never more than they cost.
        case fixed(Money)
        /// The shipping, whole.
        case freeShipping
    }

    /// Upper-case letters, digits and dashes, 3 to 32 of them: what the shopper types, in any case.
    public var code: String
    public var kind: Kind
    /// The first moment it holds, and the moment it stops; nil for no bound.
    public var startsAt: Date?
    public var endsAt: Date?
    /// Uses in total, and by one customer; nil for no limit.
    public var totalUses: Int?
    public var usesPerCustomer: Int?
    /// The least the goods it applies to must come to.
    public var minimumSubtotal: Money?
    /// The products (their ids) and variants (their SKUs) it applies to; empty for every one.
    public var onlyFor: Set<ProductID>
    /// A paused code is refused like an unknown one until it is resumed.
    public var isPaused: Bool

    public init(
        code: String, kind: Kind, startsAt: Date? = nil, endsAt: Date? = nil, totalUses: Int? = nil, usesPerCustomer: Int? = nil,
        minimumSubtotal: Money? = nil, onlyFor: Set<ProductID> = [], isPaused: Bool = false
    ) {
        self.code = code
        self.kind = kind
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.totalUses = totalUses
        self.usesPerCustomer = usesPerCustomer
        self.minimumSubtotal = minimumSubtotal
        self.onlyFor = onlyFor
        self.isPaused = isPaused
    }

    /// The code as it is kept and compared: trimmed and upper-cased; nil for text that is not a code.
    public static func normalized(_ typed: String) -> String? {
        let code = typed.trimmingCharacters(in: .whitespaces).uppercased()
        guard (3...32).contains(code.count), code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        return code
    }

    /// Whether `line` is one the code applies to: every line, or the product's id or the variant's SKU is named.
    public func covers(_ line: CartLine) -> Bool {
        onlyFor.isEmpty || onlyFor.contains(line.productID) || line.variant.map { onlyFor.contains($0.sku) } == true
    }

    /// Why the code does not hold at `date` for a customer, whatever the cart: paused, not yet, expired, used up; nil
    /// when it holds. A use is claimed against this, in the same transaction that counts the uses.
    ///
    /// A code of so many uses per customer is not for a guest (`customer` one of the per-session guest ids): the shop
    /// cannot tell one guest from the next, so each new tab would be a new customer. The guest is asked to sign in.
    public func refusal(at date: Date, usedInAll: Int, usedByCustomer: Int, customer: String? = nil) -> DiscountRefusal? {
        if isPaused { return .unknown }
        if let startsAt, date < startsAt { return .notYet }
        if let endsAt, date >= endsAt { return .expired }
        if let totalUses, usedInAll >= totalUses { return .usedUp }
        if usesPerCustomer != nil, let customer, Self.isGuest(customer) { return .signInFirst }
        if let usesPerCustomer, usedByCustomer >= usesPerCustomer { return .usedByYou }
        return nil
    }

    /// Whether `customer` is a guest's one-time id (an SSH visitor without a key, a browser tab not signed in).
    public static func isGuest(_ customer: String) -> Bool { customer.hasPrefix("ssh-guest:") || customer.hasPrefix("web-guest:") }

    /// The code as a column keeps it.
    public var document: String {
        // A value of plain strings, numbers and dates always encodes.
        (try? String(decoding: JSONEncoder().encode(self), as: UTF8.self)) ?? "{}"
    }

    /// The code a column kept; nil for text that is not one.
    public static func decoded(_ document: String) -> DiscountCode? {
        try? JSONDecoder().decode(DiscountCode.self, from: Data(document.utf8))
    }

    /// What the code takes off `lines` and `shipping` at `date`, given how often it was used (in all, and by this
    /// customer); or why it does not apply.
    public func apply(to lines: [CartLine], shipping: Money, at date: Date, usedInAll: Int, usedByCustomer: Int, customer: String? = nil) -> Result<
        AppliedDiscount, DiscountRefusal
    > {
        if let refusal = refusal(at: date, usedInAll: usedInAll, usedByCustomer: usedByCustomer, customer: customer) { return .failure(refusal) }
        return amounts(on: lines, shipping: shipping)
    }

    /// What the code takes off `lines` and `shipping`, whenever and by whomever it is used: the part of `apply` that
    /// depends on the cart alone (the products it covers, its minimum), which the sheet works out again when the
    /// shipping changes.
    public func amounts(on lines: [CartLine], shipping: Money) -> Result<AppliedDiscount, DiscountRefusal> {
        let currency = shipping.currency
        let covered = lines.filter(covers)
        guard !covered.isEmpty else { return .failure(.otherProducts) }
        let eligible = covered.subtotal(in: currency)
        if let minimumSubtotal, eligible.minorUnits < minimumSubtotal.minorUnits { return .failure(.belowMinimum(minimumSubtotal)) }
        let goods: Int64
        switch kind {
        case .percentage(let basisPoints):
            // Half a minor unit and more rounds up: 10% of 0.05 is 0.01.
            goods = (eligible.minorUnits * Int64(min(max(basisPoints, 0), 10_000)) + 5_000) / 10_000
        case .fixed(let amount):
            goods = min(max(amount.minorUnits, 0), eligible.minorUnits)
        case .freeShipping:
            return .success(AppliedDiscount(code: code, shipping: shipping, lineShares: [:], currency: currency))
        }
        let shares = ProportionalShares.split(goods, by: covered.map(\.total.minorUnits))
        var byLine: [ProductID: Money] = [:]
        for (line, share) in zip(covered, shares) { byLine[line.stockKey] = Money(minorUnits: share, currency: currency) }
        return .success(AppliedDiscount(code: code, shipping: .zero(currency), lineShares: byLine, currency: currency))
    }
}

/// What a code took off an order: off each line (by its stock key) and off the shipping.
public struct AppliedDiscount: Hashable, Sendable, Codable {
    public var code: String
    /// Off the shipping (a free-shipping code: all of it).
    public var shipping: Money
    /// Off each line's total, by the line's stock key; the shares add up to `goods`.
    public var lineShares: [ProductID: Money]
    public var currency: Currency

    public init(code: String, shipping: Money, lineShares: [ProductID: Money], currency: Currency) {
        self.code = code
        self.shipping = shipping
        self.lineShares = lineShares
        self.currency = currency
    }

    /// Why this discount, worked out when the order was drafted, cannot be held for it now that `code` (nil: gone) is
    /// read under the lock that counts its uses: the code refuses, or takes off something else than it did then.
    public func refusal(
        holding code: DiscountCode?, on lines: [CartLine], shipping: Money, at date: Date, usedInAll: Int, usedByCustomer: Int,
        customer: String? = nil
    ) -> DiscountRefusal? {
        guard let code, code.code == self.code else { return .unknown }
        switch code.apply(to: lines, shipping: shipping, at: date, usedInAll: usedInAll, usedByCustomer: usedByCustomer, customer: customer) {
        case .failure(let refusal): return refusal
        case .success(let now): return now == self ? nil : .unknown
        }
    }

    /// Off the goods, in all.
    public var goods: Money { lineShares.values.sum(in: currency) }
    /// Off the line whose stock key is `key`.
    public func share(of key: ProductID) -> Money { lineShares[key] ?? .zero(currency) }
    /// The shares as a column keeps them: `{"stock key": minor units}`.
    public var sharesDocument: String {
        let plain = Dictionary(uniqueKeysWithValues: lineShares.map { ($0.key.rawValue, $0.value.minorUnits) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? String(decoding: encoder.encode(plain), as: UTF8.self)) ?? "{}"
    }

    /// The discount an order kept: its code, what came off the goods line by line (`sharesDocument`) and the shipping.
    public init?(stored code: String?, shares: String?, shipping: Int64, currency: Currency) {
        guard let code else { return nil }
        let plain = shares.flatMap { try? JSONDecoder().decode([String: Int64].self, from: Data($0.utf8)) } ?? [:]
        self.init(
            code: code, shipping: Money(minorUnits: shipping, currency: currency),
            lineShares: Dictionary(uniqueKeysWithValues: plain.map { (ProductID($0.key), Money(minorUnits: $0.value, currency: currency)) }),
            currency: currency)
    }
    /// Off the order, in all.
    public var total: Money { goods + shipping }
}

/// Why a code does not apply, in one line a shopper reads. An unknown code and a paused one read the same, and neither
/// hints at a code that looks like it.
public enum DiscountRefusal: Error, Hashable, Sendable {
    case unknown, notYet, expired, usedUp, usedByYou
    /// A code of so many uses per customer, tried by a guest.
    case signInFirst
    case belowMinimum(Money)
    case otherProducts
    /// With the code, the order would be `total`, which a card cannot pay (nothing, or under the provider's smallest
    /// charge, whose words `why` are when it is that).
    case leavesTooLittle(total: Money, why: String?)

    /// The refusal in English, for the merchant's command line and logs.
    public var line: String { words.description }

    /// The refusal in the shopper's language.
    public var words: Localized {
        switch self {
        case .unknown: Localized("That code is not one this shop has.")
        case .notYet: Localized("That code does not hold yet.")
        case .expired: Localized("That code has expired.")
        case .usedUp: Localized("That code has been used up.")
        case .usedByYou: Localized("You have used that code already.")
        case .signInFirst: Localized("That code is once per customer: sign in to use it.")
        case .belowMinimum(let minimum): Localized("That code needs \(minimum) of goods it applies to.")
        case .otherProducts: Localized("That code is for other products.")
        case .leavesTooLittle(let total, let why):
            why.map { Localized("With that code the order would be \(total). \(Localized.lookup($0))") }
                ?? Localized("With that code the order would be \(total), which a card cannot pay: the shop does not give orders away.")
        }
    }
}

/// A total shared across parts in proportion to their weights, in whole minor units that add up to the total exactly:
/// each part's exact share rounded down, then the units left over given one each to the parts with the largest
/// remainders (the earlier part first on a tie). Discounts share out this way across an order's lines.
public enum ProportionalShares {
    public static func split(_ total: Int64, by weights: [Int64]) -> [Int64] {
        let weights = weights.map { max($0, 0) }
        let sum = weights.reduce(0, +)
        guard total > 0, sum > 0 else { return weights.map { _ in 0 } }
        // Products of two amounts within Money's bound fit in 128 bits, never in 64.
        var shares: [Int64] = []
        var remainders: [(index: Int, remainder: Int64)] = []
        for (index, weight) in weights.enumerated() {
            let (high, low) = total.multipliedFullWidth(by: weight)
            let (quotient, remainder) = sum.dividingFullWidth((high, low))
            shares.append(quotient)
            remainders.append((index, remainder))
        }
        var left = total - shares.reduce(0, +)
        for entry in remainders.sorted(by: { $0.remainder != $1.remainder ? $0.remainder > $1.remainder : $0.index < $1.index }) where left > 0 {
            shares[entry.index] += 1
            left -= 1
        }
        return shares
    }
}
