import Foundation
import ShopModels
import ShopPorts

/// The customers as the merchant finds and reads them, over one shop's storage: what the console's customer screens
/// and `storefront customers` both read, so both show the same page.
public struct StorageCustomerDirectory: CustomerDirectory {
    let storage: ShopStorage

    public func search(_ query: String, limit: Int) async throws -> [CustomerMatch] {
        try await storage.customers.customers(matching: query, limit: limit)
    }

    public func page(_ typed: String, orders limit: Int) async throws -> CustomerPage? {
        guard let customer = try await customerID(typed) else { return nil }
        return CustomerPage(
            customerID: customer, account: try await storage.accounts.account(id: customer),
            addresses: try await storage.wallets.wallet(forCustomer: customer).addresses,
            spend: try await storage.customers.spend(customer: customer),
            orderCount: try await storage.orders.count(customer: customer),
            orders: try await storage.orders.orders(customer: customer, offset: 0, limit: limit),
            subscriptions: try await storage.subscriptions.subscriptions(customer: customer),
            notes: try await storage.customers.notes(customer: customer))
    }

    public func addNote(_ note: CustomerNote, customer: String) async throws {
        try await storage.customers.add(note, customer: customer)
    }

    /// The customer id `typed` names: an account's id, one of its ways in (`ssh:SHA256:…`, as `accounts` prints them),
    /// its verified email, or an id orders were placed under.
    public func customerID(_ typed: String) async throws -> String? {
        if typed.contains("@") && !typed.contains(":") { return try await storage.accounts.account(verifiedEmail: typed)?.id }
        if try await storage.accounts.account(id: typed) != nil { return typed }
        if try await storage.orders.count(customer: typed) > 0 { return typed }
        // A way in as `accounts` prints it: the one account whose way in has that key, found without making one.
        guard let colon = typed.firstIndex(of: ":") else { return nil }
        let key = String(typed[typed.index(after: colon)...])
        let found = try await storage.customers.customers(matching: key, limit: 2).filter { $0.matchedBy == .key }
        return found.count == 1 ? found[0].customerID : nil
    }
}

extension ShopStorage {
    /// The customers as the merchant finds and reads them.
    public var customerDirectory: StorageCustomerDirectory { StorageCustomerDirectory(storage: self) }
}
