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
        let found: CustomerPage?
        do { found = try await storage.customerDirectory.page(id, orders: limit) } catch {
            complain("cannot read the customer: \(error)")
            throw ExitCodes.ioError
        }
        guard let page = found else {
            complain("no customer has the id or verified email \"\(id.prefix(80))\": `storefront customers search` finds them")
            throw ExitCodes.dataError
        }
        try writeResult(json ? try CustomerReport.json(page) : CustomerReport.text(page), what: "the customer")
    }

    /// Writes `text` on the page of the customer `id` names, signed with the user's name: 65 for a note that is not one
    /// line of 1 to 500 characters, or no such customer; 74 when the database fails.
    public static func note(
        _ id: String, text: String, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let checked: String
        switch CustomerNote.checked(text) {
        case .success(let text): checked = text
        case .failure(let problem):
            complain(problem.message)
            throw ExitCodes.dataError
        }
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let directory = storage.customerDirectory
        do {
            guard let customer = try await directory.customerID(id) else {
                complain("no customer has the id or verified email \"\(id.prefix(80))\": `storefront customers search` finds them")
                throw ExitCodes.dataError
            }
            try await directory.addNote(CustomerNote(author: "merchant:\(NSUserName())", at: storage.clock.now(), text: checked), customer: customer)
            printSafely("Noted on \(customer)'s page.")
        } catch let exit as CommandExit {
            throw exit
        } catch {
            complain("cannot write the note: \(error)")
            throw ExitCodes.ioError
        }
    }
}
