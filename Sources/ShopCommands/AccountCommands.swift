import Foundation
import MerchantReports
import ShopBootstrap
import ShopPorts

/// `storefront accounts`: the customers' accounts and their ways in, for the operator.
public enum AccountCommands {
    /// Every account, by id.
    public static func list(json: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws
    {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let accounts: [CustomerAccount]
        do { accounts = try await storage.accounts.accounts(offset: 0, limit: 100_000) } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        try writeResult(json ? try AccountReport.json(accounts) : AccountReport.table(accounts), what: "the accounts")
    }

    /// One account, by its id or its verified email; 65 when none has it.
    public static func show(
        _ idOrEmail: String, json: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let found = try await find(idOrEmail, in: storage)
        try writeResult(json ? try AccountReport.json(found) : AccountReport.text(found), what: "the account")
    }
}

extension AccountCommands {
    /// Joins account `from` into `into` (each by id or verified email); says what moved. 65 for an account that is not
    /// there or the same account twice.
    public static func merge(
        _ from: String, into: String, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let (left, kept) = (try await find(from, in: storage), try await find(into, in: storage))
        guard left.id != kept.id else {
            complain("\(from) and \(into) are the same account")
            throw ExitCodes.dataError
        }
        do {
            let moved = try await storage.accounts.merge(left.id, into: kept.id)
            let summary = moved.map { "\($0.count) \($0.what)" }.joined(separator: ", ")
            printSafely("Merged \(left.id) into \(kept.id): \(summary). \(left.id) is gone; its ways in reach \(kept.id).")
            if let email = left.email, left.emailVerifiedAt != nil, kept.emailVerifiedAt != nil, email.lowercased() != kept.email?.lowercased() {
                printSafely("\(kept.id) keeps its verified email \(kept.email ?? ""); \(email) was dropped.")
            }
        } catch {
            complain("cannot merge: \(error)")
            throw ExitCodes.ioError
        }
    }

    /// The account of `idOrEmail`: an id, or a verified email; 65 when none.
    static func find(_ idOrEmail: String, in storage: ShopStorage) async throws -> CustomerAccount {
        let found: CustomerAccount?
        do {
            found =
                idOrEmail.contains("@") && !idOrEmail.contains(":")
                ? try await storage.accounts.account(verifiedEmail: idOrEmail) : try await storage.accounts.account(id: idOrEmail)
        } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        guard let found else {
            complain("no account has the id or verified email \"\(idOrEmail.prefix(80))\": `storefront accounts list` shows them")
            throw ExitCodes.dataError
        }
        return found
    }
}
