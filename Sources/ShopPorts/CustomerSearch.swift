import Foundation
import ShopModels

/// Finding a customer the way a merchant remembers them, and what they have spent.
public protocol CustomerSearch: Sendable {
    /// Customers whose email or name holds `query` (any case), whose order has that number, or whose way in (an SSH
    /// key's fingerprint) holds it; the best matches first, at most `limit`.
    func customers(matching query: String, limit: Int) async throws -> [CustomerMatch]
    /// What `customer` paid and got back, per currency, over every order charged.
    func spend(customer: String) async throws -> [CustomerSpend]
}

/// A customer a search found, and by what.
public struct CustomerMatch: Hashable, Sendable {
    public enum Field: String, Hashable, Sendable {
        case order, email, name, key
    }

    public var customerID: String
    public var name: String?
    public var email: String?
    /// Orders charged, however many currencies.
    public var orders: Int
    public var matchedBy: Field

    public init(customerID: String, name: String?, email: String?, orders: Int, matchedBy: Field) {
        self.customerID = customerID
        self.name = name
        self.email = email
        self.orders = orders
        self.matchedBy = matchedBy
    }
}

/// One currency's lifetime figures of a customer.
public struct CustomerSpend: Hashable, Sendable {
    public var orders: Int
    public var charged: Money
    public var refunded: Money

    public init(orders: Int, charged: Money, refunded: Money) {
        self.orders = orders
        self.charged = charged
        self.refunded = refunded
    }

    public var net: Money { charged - refunded }
}

/// The words a search is held to: at least two characters, at most 200, no control characters.
public enum CustomerQuery {
    public static let longest = 200

    /// The query trimmed, or why it cannot be searched for.
    public static func checked(_ typed: String) -> Result<String, CustomerQueryProblem> {
        let query = typed.trimmingCharacters(in: .whitespaces)
        guard query.count >= 2 else { return .failure(CustomerQueryProblem(message: "Type at least two characters to search for.")) }
        guard query.count <= longest else { return .failure(CustomerQueryProblem(message: "A search is at most \(longest) characters.")) }
        guard !query.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return .failure(CustomerQueryProblem(message: "A search cannot hold control characters."))
        }
        return .success(query)
    }
}

/// Why a search was not made.
public struct CustomerQueryProblem: Error, Equatable, Sendable {
    public var message: String
}
