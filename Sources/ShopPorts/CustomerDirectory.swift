import Foundation
import ShopModels

/// A note a merchant writes on a customer's page: who, when, and what.
public struct CustomerNote: Hashable, Sendable {
    public var author: String
    public var at: Date
    public var text: String

    public init(author: String, at: Date, text: String) {
        self.author = author
        self.at = at
        self.text = text
    }

    /// The most a note holds.
    public static let longest = 500

    /// `typed` trimmed, or why it cannot be a note: one line of 1 to 500 characters, no control characters. The console's
    /// form and `storefront customers note` both ask this.
    public static func checked(_ typed: String) -> Result<String, CustomerQueryProblem> {
        let text = typed.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return .failure(CustomerQueryProblem(message: "Write the note: 1 to \(longest) characters.")) }
        guard text.count <= longest else { return .failure(CustomerQueryProblem(message: "A note is at most \(longest) characters.")) }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return .failure(CustomerQueryProblem(message: "A note is one line, without control characters."))
        }
        return .success(text)
    }
}

/// The notes merchants write on customers, oldest first.
public protocol CustomerNotes: Sendable {
    func notes(customer: String) async throws -> [CustomerNote]
    func add(_ note: CustomerNote, customer: String) async throws
}

/// Everything a merchant sees of one customer: who they are and their ways in, where they ship, what they spent and
/// got back, their latest orders, their subscriptions, and the merchant's notes.
public struct CustomerPage: Equatable, Sendable {
    public var customerID: String
    public var account: CustomerAccount?
    public var addresses: [Contact]
    public var spend: [CustomerSpend]
    public var orderCount: Int
    public var orders: [Order]
    public var subscriptions: [Subscription]
    public var notes: [CustomerNote]

    public init(
        customerID: String, account: CustomerAccount?, addresses: [Contact], spend: [CustomerSpend], orderCount: Int, orders: [Order],
        subscriptions: [Subscription], notes: [CustomerNote] = []
    ) {
        self.customerID = customerID
        self.account = account
        self.addresses = addresses
        self.spend = spend
        self.orderCount = orderCount
        self.orders = orders
        self.subscriptions = subscriptions
        self.notes = notes
    }

    /// The name a merchant knows them by: the account's, else their latest order's contact; nil for neither.
    public var name: String? { account?.name ?? orders.first?.contactName }
    public var email: String? { account?.email ?? orders.first?.email }
}

/// The customers as the merchant finds and reads them, the same for the console and `storefront customers`.
public protocol CustomerDirectory: Sendable {
    /// Customers matching `query` (`CustomerSearch`), best first.
    func search(_ query: String, limit: Int) async throws -> [CustomerMatch]
    /// The page of the customer `typed` names (an account's id, one of its ways in, a verified email, or an id orders
    /// were placed under) with its latest `orders`; nil when it names none.
    func page(_ typed: String, orders: Int) async throws -> CustomerPage?
    /// Adds a note to `customer`'s page, checked as `CustomerNote.checked` says.
    func addNote(_ note: CustomerNote, customer: String) async throws
}
