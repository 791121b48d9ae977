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
        try writeResult(json ? try AccountReport.json(found) : AccountReport.text(found), what: "the account")
    }
}
