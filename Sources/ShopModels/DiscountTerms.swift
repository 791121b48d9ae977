import Foundation

/// A new code's terms as a merchant types them, on the command line or in the API: checked the same way on both, each
/// problem naming its field as that front spells it.
public struct DiscountTerms: Sendable {
    /// The fields a problem can name.
    public enum Field: String, Sendable, CaseIterable {
        case code, percent, amount, freeShipping, from, until, uses, perCustomer, minimum, only
    }

    /// What is wrong with the terms, in one line, and the field it is about.
    public struct Problem: Error, Equatable, Sendable {
        public var field: Field
        public var message: String

        public init(field: Field, message: String) {
            self.field = field
            self.message = message
        }
    }

    /// The most uses a code can be given in all or per customer, and the most products it can name.
    public static let mostUses = 1_000_000_000
    public static let mostProducts = 500

    public var percent: String?
    public var amount: String?
    public var freeShipping: Bool
    public var from: String?
    public var until: String?
    public var uses: Int?
    public var perCustomer: Int?
    public var minimum: String?
    public var only: [String]

    public init(
        percent: String?, amount: String?, freeShipping: Bool, from: String?, until: String?, uses: Int?, perCustomer: Int?, minimum: String?,
        only: [String]
    ) {
        self.percent = percent
        self.amount = amount
        self.freeShipping = freeShipping
        self.from = from
        self.until = until
        self.uses = uses
        self.perCustomer = perCustomer
        self.minimum = minimum
        self.only = only
    }

    /// The code `name` on these terms in `currency`, or the first problem, its field spelled by `spell`.
    public func code(_ name: String, currency: Currency, spell: (Field) -> String) -> Result<DiscountCode, Problem> {
        func problem(_ field: Field, _ message: String) -> Result<DiscountCode, Problem> { .failure(Problem(field: field, message: message)) }
        guard let code = DiscountCode.normalized(name) else {
            return problem(.code, "a code is 3 to 32 letters, digits or dashes, got \"\(name.prefix(40))\"")
        }
        let kinds = [percent != nil, amount != nil, freeShipping].filter { $0 }.count
        guard kinds == 1 else {
            return problem(.percent, "say what the code takes off: one of \(spell(.percent)), \(spell(.amount)) or \(spell(.freeShipping))")
        }
        let kind: DiscountCode.Kind
        if let percent {
            // Digits and at most one point, nothing else: Decimal(string:) alone reads "50abc" as 50 and "1e2" as 100.
            let plain = percent.wholeMatch(of: /[0-9]{1,3}(\.[0-9]{1,4})?/) != nil
            guard percent.count <= 12, plain, let value = Decimal(string: percent), value > 0, value <= 100, (value * 100).isWhole else {
                return problem(
                    .percent, "\(spell(.percent)) must be more than 0 and at most 100, in hundredths at most (12.5), got \"\(percent.prefix(20))\"")
            }
            kind = .percentage(basisPoints: NSDecimalNumber(decimal: value * 100).intValue)
        } else if let amount {
            guard let money = Money(typed: amount, currency: currency), money.minorUnits > 0 else {
                return problem(.amount, "\(spell(.amount)) must be a plain amount in \(currency.code) such as 5.00, got \"\(amount.prefix(20))\"")
            }
            kind = .fixed(money)
        } else {
            kind = .freeShipping
        }
        var minimumSubtotal: Money?
        if let minimum {
            guard let money = Money(typed: minimum, currency: currency) else {
                return problem(.minimum, "\(spell(.minimum)) must be a plain amount in \(currency.code) such as 20.00, got \"\(minimum.prefix(20))\"")
            }
            minimumSubtotal = money
        }
        for (field, count) in [(Field.uses, uses), (.perCustomer, perCustomer)] {
            guard let count else { continue }
            guard (1...Self.mostUses).contains(count) else { return problem(field, "\(spell(field)) counts from 1 to \(Self.mostUses)") }
        }
        var moments: [Field: Date] = [:]
        for (field, text) in [(Field.from, from), (.until, until)] {
            guard let text else { continue }
            guard let moment = Self.moment(text) else {
                return problem(field, "\(spell(field)) must be a date (2026-12-01) or a UTC time (2026-12-01T09:00:00Z)")
            }
            moments[field] = moment
        }
        if let start = moments[.from], let end = moments[.until], end <= start {
            return problem(.until, "\(spell(.until)) must come after \(spell(.from))")
        }
        let products = only.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard products.count <= Self.mostProducts, products.allSatisfy({ $0.count <= 100 && !$0.contains(where: \.isNewline) }) else {
            return problem(.only, "\(spell(.only)) names at most \(Self.mostProducts) product ids or SKUs of at most 100 characters")
        }
        return .success(
            DiscountCode(
                code: code, kind: kind, startsAt: moments[.from], endsAt: moments[.until], totalUses: uses, usesPerCustomer: perCustomer,
                minimumSubtotal: minimumSubtotal, onlyFor: Set(products.map { ProductID($0) })))
    }

    /// A date (midnight UTC) or a UTC time, as ISO 8601 writes them.
    public static func moment(_ text: String) -> Date? {
        guard text.count <= 40 else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }
}

extension DiscountCode {
    /// "10% off; 3 uses, 1 a customer; from … until …; at least $20.00; only mug, tee-m; paused".
    public var summary: String {
        var parts: [String] = []
        switch kind {
        case .percentage(let points): parts.append("\(Self.percent(points))% off")
        case .fixed(let amount): parts.append("\(amount.formatted) off")
        case .freeShipping: parts.append("free shipping")
        }
        let uses = [totalUses.map { "\($0) use\($0 == 1 ? "" : "s")" }, usesPerCustomer.map { "\($0) a customer" }].compactMap { $0 }
        if !uses.isEmpty { parts.append(uses.joined(separator: ", ")) }
        if let startsAt { parts.append("from \(UTCTime(startsAt).minutes) UTC") }
        if let endsAt { parts.append("until \(UTCTime(endsAt).minutes) UTC") }
        if let minimumSubtotal { parts.append("at least \(minimumSubtotal.formatted)") }
        if !onlyFor.isEmpty { parts.append("only " + onlyFor.map(\.description).sorted().joined(separator: ", ")) }
        if isPaused { parts.append("paused") }
        return parts.joined(separator: "; ")
    }

    /// Basis points as a percentage: "10", "12.5", "0.01".
    public static func percent(_ points: Int) -> String {
        let whole = "\(points / 100)"
        let cents = points % 100
        guard cents != 0 else { return whole }
        return whole + "." + (cents % 10 == 0 ? "\(cents / 10)" : (cents < 10 ? "0\(cents)" : "\(cents)"))
    }
}

extension Decimal {
    fileprivate var isWhole: Bool {
        var value = self
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        return rounded == self
    }
}
