import Foundation
import MerchantReports
import ShopBootstrap
import ShopModels
import ShopPorts

/// `storefront discounts`: the shop's discount codes, made, listed, paused, resumed and deleted (docs/discounts.md).
public enum DiscountCommands {
    /// What a new code takes off and when and for whom it holds, as typed on the command line.
    public struct Terms: Sendable {
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
    }

    /// The code `name` on `terms` in `currency`, or what is wrong with them, in one line.
    public static func code(_ name: String, terms: Terms, currency: Currency) -> Result<DiscountCode, CommandProblem> {
        guard let code = DiscountCode.normalized(name) else {
            return .failure(CommandProblem("a code is 3 to 32 letters, digits or dashes, got \"\(name.prefix(40))\""))
        }
        let kinds = [terms.percent != nil, terms.amount != nil, terms.freeShipping].filter { $0 }.count
        guard kinds == 1 else { return .failure(CommandProblem("say what the code takes off: one of --percent, --amount or --free-shipping")) }
        let kind: DiscountCode.Kind
        if let percent = terms.percent {
            guard let value = Decimal(string: percent), value > 0, value <= 100, (value * 100).isWhole else {
                return .failure(CommandProblem("--percent must be more than 0 and at most 100, in hundredths at most (12.5), got \"\(percent)\""))
            }
            kind = .percentage(basisPoints: NSDecimalNumber(decimal: value * 100).intValue)
        } else if let amount = terms.amount {
            guard let money = Money(typed: amount, currency: currency), money.minorUnits > 0 else {
                return .failure(CommandProblem("--amount must be a plain amount in \(currency.code) such as 5.00, got \"\(amount)\""))
            }
            kind = .fixed(money)
        } else {
            kind = .freeShipping
        }
        var minimum: Money?
        if let text = terms.minimum {
            guard let money = Money(typed: text, currency: currency) else {
                return .failure(CommandProblem("--minimum must be a plain amount in \(currency.code) such as 20.00, got \"\(text)\""))
            }
            minimum = money
        }
        guard terms.uses.map({ $0 > 0 }) ?? true, terms.perCustomer.map({ $0 > 0 }) ?? true else {
            return .failure(CommandProblem("--uses and --per-customer count from 1"))
        }
        let from: Date?
        let until: Date?
        switch (terms.from.map(moment), terms.until.map(moment)) {
        case (.some(nil), _): return .failure(CommandProblem("--from must be a date (2026-12-01) or a UTC time (2026-12-01T09:00:00Z)"))
        case (_, .some(nil)): return .failure(CommandProblem("--until must be a date (2026-12-01) or a UTC time (2026-12-01T09:00:00Z)"))
        case (let start, let end): (from, until) = (start ?? nil, end ?? nil)
        }
        if let from, let until, until <= from { return .failure(CommandProblem("--until must come after --from")) }
        let only = terms.only.flatMap { $0.split(separator: ",") }.map { ProductID(String($0).trimmingCharacters(in: .whitespaces)) }
        return .success(
            DiscountCode(
                code: code, kind: kind, startsAt: from, endsAt: until, totalUses: terms.uses, usesPerCustomer: terms.perCustomer,
                minimumSubtotal: minimum, onlyFor: Set(only)))
    }

    /// A date (midnight UTC) or a UTC time, as ISO 8601 writes them.
    static func moment(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }

    /// Files a new code; 64 for terms that say something wrong, 65 for a name another code has.
    public static func create(
        _ name: String, terms: Terms, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let code: DiscountCode
        switch Self.code(name, terms: terms, currency: storage.currency) {
        case .success(let made): code = made
        case .failure(let problem):
            complain(problem.message)
            throw ExitCodes.usage
        }
        do throws(DiscountCodeError) { try await storage.discounts.create(code, at: Date()) } catch {
            complain("\(error)")
            if case .exists = error { throw ExitCodes.dataError }
            throw ExitCodes.ioError
        }
        printSafely("\(code.code): \(DiscountReport.terms(code)).")
    }

    /// Every code, its terms and its uses.
    public static func list(json: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws
    {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let codes: [(code: DiscountCode, uses: Int)]
        do throws(DiscountCodeError) { codes = try await storage.discounts.all() } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        if json {
            try writeResult(try DiscountReport.json(codes), what: "the codes")
        } else if codes.isEmpty {
            printSafely("No discount codes: `storefront discounts create CODE --percent 10` makes one.")
        } else {
            try writeResult(codes.map { DiscountReport.line($0.code, uses: $0.uses) }.joined(separator: "\n") + "\n", what: "the codes")
        }
    }

    /// Pauses (`paused`) or resumes a code; 65 for no such code.
    public static func setPaused(
        _ name: String, _ paused: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let code = DiscountCode.normalized(name) ?? name
        let changed: Bool
        do throws(DiscountCodeError) { changed = try await storage.discounts.setPaused(code, paused) } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        guard changed else {
            complain("no discount code \(code): `storefront discounts list` shows them")
            throw ExitCodes.dataError
        }
        printSafely(paused ? "\(code) is paused: it is refused like an unknown code until resumed." : "\(code) holds again.")
    }

    /// Deletes a code no order used; 65 for no such code or one orders used (pause it instead).
    public static func delete(_ name: String, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws
    {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let code = DiscountCode.normalized(name) ?? name
        let deleted: Bool
        do throws(DiscountCodeError) { deleted = try await storage.discounts.delete(code) } catch {
            complain("\(error)")
            if case .used = error { throw ExitCodes.dataError }
            throw ExitCodes.ioError
        }
        guard deleted else {
            complain("no discount code \(code): `storefront discounts list` shows them")
            throw ExitCodes.dataError
        }
        printSafely("\(code) is deleted.")
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
