import Foundation
import MerchantReports
import ShopBootstrap
import ShopModels
import ShopPorts

/// `storefront discounts`: the shop's discount codes, made, listed, paused, resumed and deleted (docs/discounts.md).
public enum DiscountCommands {
    /// What a new code takes off and when and for whom it holds, as typed on the command line.
    public typealias Terms = DiscountTerms

    /// The code `name` on `terms` in `currency`, or what is wrong with them in one line naming the option.
    public static func code(_ name: String, terms: Terms, currency: Currency) -> Result<DiscountCode, CommandProblem> {
        terms.code(name, currency: currency) { field in
            "--" + field.rawValue.replacing(#/[A-Z]/#) { "-" + $0.output.lowercased() }
        }.mapError { CommandProblem($0.message) }
    }

    /// Files a new code; 64 for terms that say something wrong, 65 for a name another code has or a product the catalog
    /// does not have.
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
        do throws(DiscountCodeError) { try await storage.discounts.create(code, at: Date(), checkingAgainst: storage.catalog) } catch {
            complain("\(error)")
            switch error {
            case .exists, .unknownProducts: throw ExitCodes.dataError
            default: throw ExitCodes.ioError
            }
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
            try writeResult(codes.map { DiscountReport.line($0.code, uses: $0.uses) }.joined(separator: "\n"), what: "the codes")
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
