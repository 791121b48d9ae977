import Foundation
import MerchantReports
import ShopBootstrap
import ShopModels
import ShopPorts
import ShopSSH
import StorefrontUI
import SystemPackage

/// `storefront orders`: the orders listed for scripts, one order with its history.
public enum OrderCommands {
    /// Every customer's orders (or one's), newest first, as a table or JSON. Listing writes nothing: on SQLite, a data
    /// directory that was named must exist (66), and the default one not made yet holds no orders.
    public static func list(
        configuration: ShopConfiguration, customer: String?, limit: Int, json: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let place: StoragePlace? =
            if let url = configuration.database { .postgres(url) } else {
                try existingDataDirectory(named: configuration.dataDirectory, environment: environment).map { .sqlite(directory: $0) }
            }
        let orders = try await openingStorage {
            guard let place else { return [Order]() }
            return try await ShopStorage.readOrders(at: place, customer: customer, limit: limit, environment: environment)
        }
        // The list is the command's result: a list that did not reach its reader (a full disk, a closed pipe) is an error.
        let text: String
        if json {
            do { text = try OrderReport.json(orders) } catch {
                complain("cannot write the orders as JSON: \(error)")
                throw ExitCodes.cannotSerialize
            }
        } else {
            text = OrderReport.table(orders)
        }
        try writeResult(text, what: "the orders")
    }

    /// One order with its lines, history and refunds; 65 for no such order, 74 when storage fails.
    public static func show(
        _ number: String, configuration: ShopConfiguration, json: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let orders = storage.orders
        let order: Order?
        let events: [OrderEvent]
        let refunds: [FiledRefund]
        do {
            order = try await orders.order(number: number)
            events = try await orders.events(orderNumber: number)
            refunds = try await orders.refunds(orderNumber: number)
        } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        guard let order else {
            complain("There is no order \(number).")
            throw ExitCodes.dataError
        }
        try emit(order, events: events, refunds: refunds, json: json)
    }

    /// Prints the order as asked; a change that is made but cannot be told is still an error.
    static func emit(_ order: Order, events: [OrderEvent], refunds: [FiledRefund], json: Bool) throws {
        let text = json ? try OrderReport.json(order, events: events, refunds: refunds) : OrderReport.text(order, events: events, refunds: refunds)
        try writeResult(text, what: "the order")
    }

    /// The data directory to read: a directory that was named must exist (66); the default one not made yet holds
    /// no orders (nil).
    private static func existingDataDirectory(named: FilePath?, environment: [String: String]) throws -> FilePath? {
        let directory = named ?? ShopConfiguration.defaultDataDirectory(environment: environment)
        var info = stat()
        if directory.withPlatformString({ stat($0, &info) }) != 0 {
            guard named == nil, errno == ENOENT else {
                complain("no such data directory: \(directory)")
                throw ExitCodes.noInput
            }
            return nil
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            complain("the data directory \(directory) is not a directory")
            throw ExitCodes.noInput
        }
        return directory
    }
}

extension OrderCommands {
    /// What is wrong with a listing's `--limit` or `--customer`, if anything.
    public static func listProblem(customer: String?, limit: Int) -> String? {
        guard limit > 0 else { return "--limit must be at least 1" }
        if let customer, !isCustomerID(customer) {
            return "--customer \"\(customer.prefix(80))\" is not a customer id: use \(customerIDKinds)"
        }
        return nil
    }

    /// The kinds of customer id, as the commands' lines name them.
    public static let customerIDKinds =
        "an account's acct_<16 hex digits> (storefront accounts list), ssh:SHA256:<fingerprint>, sandbox-id:<id> or local:<user>"

    /// True for every id the shop prints for a customer, whichever command takes it: an account's `acct_…`,
    /// `local:<user>`, `sandbox-id:<id>`, `ssh:SHA256:<fingerprint>`.
    public static func isCustomerID(_ text: String) -> Bool {
        if text.hasPrefix("acct_") {
            let digits = text.dropFirst(5)
            return digits.count == 16 && digits.allSatisfy { $0.isHexDigit && !$0.isUppercase }
        }
        let plain = { (rest: Substring) in
            !rest.isEmpty && rest.count <= 256 && rest.unicodeScalars.allSatisfy { !$0.isUnsafeForTerminal && $0 != " " }
        }
        if text.hasPrefix("local:") { return plain(text.dropFirst(6)) }
        if text.hasPrefix("sandbox-id:") { return plain(text.dropFirst(11)) }
        if text.hasPrefix("ssh:") { return SSHPublicKeyIdentity.isFingerprint(String(text.dropFirst(4))) }
        return false
    }

    /// A refund's `--line`: `hoodie-root:2` → (hoodie-root, 2); `hoodie-root` → (hoodie-root, nil: all of it).
    public static func parseRefundLine(_ text: String) -> (ProductID, Int?)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let id = parts.first, !id.isEmpty, parts.count <= 2 else { return nil }
        guard parts.count == 2 else { return (ProductID(String(id)), nil) }
        // Bounded as a cart line is, so summing repeated lines never overflows.
        guard let quantity = Int(parts[1]), CartLine.quantityRange.contains(quantity) else { return nil }
        return (ProductID(String(id)), quantity)
    }
}

extension OrderCommands {
    /// What is wrong with a refund's request, if anything: nothing to refund, a restock without lines, an amount that
    /// is not one, a reason that is not one plain line, a line that is not `PRODUCT-ID[:QUANTITY]`.
    public static func refundProblem(amount: String?, lines: [String], restock: Bool, reason: String) -> String? {
        guard amount != nil || !lines.isEmpty else { return "say what to refund: --amount 12.50, or one or more --line PRODUCT-ID[:QUANTITY]" }
        if restock, lines.isEmpty { return "--restock puts back the --line lines; name at least one" }
        if let amount, Money(typed: amount, currency: .usd) == nil, Money(typed: amount, currency: .jpy) == nil {
            return "--amount must be a plain amount such as 12.50, got \"\(amount)\""
        }
        if let problem = reasonProblem(reason) { return problem }
        for line in lines where parseRefundLine(line) == nil {
            return "--line must be PRODUCT-ID or PRODUCT-ID:QUANTITY with a quantity of 1 to \(CartLine.quantityRange.upperBound), got \"\(line)\""
        }
        return nil
    }

    /// What is wrong with a `--reason`, if anything: it must be one plain line of 1 to 100 characters.
    public static func reasonProblem(_ reason: String) -> String? {
        MerchantEntry.isPlainLine(reason) ? nil : "--reason must be 1 to 100 characters on one line, got \"\(reason)\""
    }

    /// What is wrong with a shipment's carrier, tracking number or tracking address, if anything.
    public static func shipmentProblem(carrier: String, trackingNumber: String, trackingURL: String?) -> String? {
        for (name, value) in [("--carrier", carrier), ("--tracking-number", trackingNumber)] where !MerchantEntry.isPlainLine(value) {
            return "\(name) must be 1 to 100 characters on one line, got \"\(value)\""
        }
        if let trackingURL, !MerchantEntry.isWebAddress(trackingURL) {
            return "--tracking-url must be a web address (https://…), got \"\(trackingURL)\""
        }
        return nil
    }
}
