import Foundation
import MerchantReports
import ShopBootstrap
import ShopModels
import ShopPorts

/// `storefront customers`: finding a customer by what the merchant remembers, and their page (docs/merchants.md).
public enum CustomerCommands {
    /// Customers whose email, name, order number or key fingerprint holds `query`; 64 for a query too short or long.
    public static func search(
        _ query: String, limit: Int, json: Bool, configuration: ShopConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        if case .failure(let problem) = CustomerQuery.checked(query) {
            complain(problem.message)
            throw ExitCodes.usage
        }
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let matches: [CustomerMatch]
        do { matches = try await storage.customers.customers(matching: query, limit: limit) } catch {
            complain("cannot search the customers: \(error)")
            throw ExitCodes.ioError
        }
        try writeResult(json ? try CustomerReport.json(matches) : CustomerReport.table(matches), what: "the customers")
    }

    /// One customer's page, by any id `storefront accounts` prints, a way in's id (`ssh:SHA256:…`, `local:NAME`) or a
    /// verified email; 65 when none has it.
    public static func show(
        _ id: String, orders limit: Int, json: Bool, configuration: ShopConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let page: CustomerReport.Page
        do {
            guard let customer = try await customerID(id, in: storage) else {
                complain("no customer has the id or verified email \"\(id.prefix(80))\": `storefront customers search` finds them")
                throw ExitCodes.dataError
            }
            page = CustomerReport.Page(
                customerID: customer, account: try await storage.accounts.account(id: customer),
                addresses: try await storage.wallets.wallet(forCustomer: customer).addresses,
                spend: try await storage.customers.spend(customer: customer), orderCount: try await storage.orders.count(customer: customer),
                orders: try await storage.orders.orders(customer: customer, offset: 0, limit: limit),
                subscriptions: try await storage.subscriptions.subscriptions(customer: customer))
        } catch let exit as CommandExit {
            throw exit
        } catch {
            complain("cannot read the customer: \(error)")
            throw ExitCodes.ioError
        }
        try writeResult(json ? try CustomerReport.json(page) : CustomerReport.text(page), what: "the customer")
    }

    /// The customer id `typed` names: an account's id or verified email, or an id orders were placed under.
    static func customerID(_ typed: String, in storage: ShopStorage) async throws -> String? {
        if typed.contains("@") && !typed.contains(":") { return try await storage.accounts.account(verifiedEmail: typed)?.id }
        if try await storage.accounts.account(id: typed) != nil { return typed }
        return try await storage.orders.count(customer: typed) > 0 ? typed : nil
    }
}
