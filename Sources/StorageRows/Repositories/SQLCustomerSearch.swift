import Foundation
import LiveObjects
import ShopModels
import ShopPorts

/// Customers found by what a merchant remembers of them, in SQL both databases run: an order number exactly, then an
/// email, an SSH key's fingerprint, then a name, each a case-blind `LIKE` with the typed `%` and `_` taken as they are.
public final class SQLCustomerSearch: CustomerSearch {
    let database: any SQLDatabase
    private let currency: Currency

    public init(database: any SQLDatabase, currency: Currency) {
        self.database = database
        self.currency = currency
    }

    public func customers(matching query: String, limit: Int) async throws -> [CustomerMatch] {
        guard case .success(let query) = CustomerQuery.checked(query), limit > 0 else { return [] }
        let pattern = "%" + Self.likeEscaped(query.lowercased()) + "%"
        let charged = OrderStatus.allCases.filter(\.wasCharged).map(\.rawValue)
        return try await database.run(.read) { connection in
            var found: [(id: String, field: CustomerMatch.Field)] = []
            func add(_ statement: SQLStatement, _ field: CustomerMatch.Field) throws {
                for id in try connection.values(statement, as: String.self) where !found.contains(where: { $0.id == id }) {
                    found.append((id, field))
                }
            }
            try add("SELECT customer FROM orders WHERE number = \(query.uppercased())", .order)
            try add("SELECT customer FROM account WHERE lower(email) LIKE \(pattern) ESCAPE '\\' ORDER BY customer LIMIT \(limit)", .email)
            try add(
                "SELECT DISTINCT customer FROM orders WHERE lower(email) LIKE \(pattern) ESCAPE '\\' ORDER BY customer LIMIT \(limit)", .email)
            try add(
                """
                SELECT DISTINCT account FROM account_way_in WHERE removed_at IS NULL AND lower(way_key) LIKE \(pattern) ESCAPE '\\'
                ORDER BY account LIMIT \(limit)
                """, .key)
            try add("SELECT customer FROM account WHERE lower(name) LIKE \(pattern) ESCAPE '\\' ORDER BY customer LIMIT \(limit)", .name)
            try add(
                "SELECT DISTINCT customer FROM orders WHERE lower(email_name) LIKE \(pattern) ESCAPE '\\' ORDER BY customer LIMIT \(limit)",
                .name)
            let chosen = Array(found.prefix(limit))
            guard !chosen.isEmpty else { return [] }
            let ids = chosen.map(\.id)
            var names: [String: (name: String?, email: String?)] = [:]
            for row in try connection.rows("SELECT customer, name, email FROM account WHERE customer IN \(list: ids)") {
                names[try row["customer"]] = (try row["name"], try row["email"])
            }
            // A customer without an account row is named by their latest order.
            for row in try connection.rows(
                "SELECT customer, email_name, email FROM orders WHERE customer IN \(list: ids) ORDER BY sequence DESC")
            {
                let id: String = try row["customer"]
                let kept = names[id]
                let (name, email): (String?, String?) = (try row["email_name"], try row["email"])
                names[id] = (kept?.name ?? name, kept?.email ?? email)
            }
            var counts: [String: Int] = [:]
            for row in try connection.rows(
                "SELECT customer, count(*) AS orders FROM orders WHERE customer IN \(list: ids) AND status IN \(list: charged) GROUP BY customer")
            {
                counts[try row["customer"]] = try row["orders"]
            }
            return chosen.map { match in
                CustomerMatch(
                    customerID: match.id, name: names[match.id]?.name, email: names[match.id]?.email, orders: counts[match.id] ?? 0,
                    matchedBy: match.field)
            }
        }
    }

    public func spend(customer: String) async throws -> [CustomerSpend] {
        let charged = OrderStatus.allCases.filter(\.wasCharged).map(\.rawValue)
        let fallback = currency
        return try await database.run(.readConsistent) { connection in
            var refunded: [String: Int64] = [:]
            for row in try connection.rows(
                """
                SELECT refund.currency AS currency, sum(refund.amount) AS amount FROM refund JOIN orders ON orders.number = refund.order_number
                WHERE orders.customer = \(customer) AND refund.state = 'refunded' GROUP BY refund.currency
                """)
            {
                refunded[try row["currency"]] = try row["amount"]
            }
            return try connection.rows(
                """
                SELECT currency, count(*) AS orders, sum(\(raw: StoredOrderRow.chargedTotalSQL)) AS charged FROM orders
                WHERE customer = \(customer) AND status IN \(list: charged) GROUP BY currency ORDER BY currency
                """
            ).map { row in
                let code: String = try row["currency"]
                let currency = Currency(code: code) ?? fallback
                return CustomerSpend(
                    orders: try row["orders"], charged: Money(minorUnits: try row["charged"], currency: currency),
                    refunded: Money(minorUnits: refunded[code] ?? 0, currency: currency))
            }
        }
    }

    /// `text` with `LIKE`'s wildcards and the escape itself escaped, so they match as typed.
    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}

extension SQLCustomerSearch: LiveObject {}
