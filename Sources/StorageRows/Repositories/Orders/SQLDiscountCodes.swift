import Foundation
import ShopModels
import ShopPorts

/// The discount codes and their uses. An order begun with a code counts the uses and holds one in the transaction
/// that reserves its stock (`hold`), the code's row locked first on PostgreSQL: two takers of the last use, on any
/// host, cannot both have it.
public struct SQLDiscountCodes: DiscountCodes {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    @discardableResult private func run<T: Sendable>(_ access: SQLAccess = .write, _ body: @escaping @Sendable (any SQLConnection) throws -> T)
        async throws(DiscountCodeError) -> T
    { try await database.run(access, failing: DiscountCodeError.storage, body) }

    public func create(_ code: DiscountCode, at date: Date) async throws(DiscountCodeError) {
        let inserted = try await run(.writeOneStatement) { connection in
            try connection.execute(
                "INSERT INTO discount_code (code, document, created_at) VALUES (\(code.code), \(code.document), \(date)) ON CONFLICT (code) DO NOTHING"
            )
        }
        guard inserted == 1 else { throw .exists(code.code) }
    }

    public func code(_ name: String) async throws(DiscountCodeError) -> DiscountCode? {
        try await run(.read) { connection in try Self.document(name, locking: false, on: connection) }
    }

    public func all() async throws(DiscountCodeError) -> [(code: DiscountCode, uses: Int)] {
        let rows = try await run(.read) { connection in
            try connection.rows(
                """
                SELECT document, (SELECT count(*) FROM discount_use u WHERE u.code = c.code AND u.released_at IS NULL) AS uses
                FROM discount_code c ORDER BY code
                """
            ).map { DiscountRow(document: try $0["document"], uses: try $0["uses"]) }
        }
        return rows.compactMap { row in DiscountCode.decoded(row.document).map { ($0, row.uses) } }
    }

    public func setPaused(_ name: String, _ paused: Bool) async throws(DiscountCodeError) -> Bool {
        try await run { connection in
            guard var code = try Self.document(name, locking: true, on: connection) else { return false }
            code.isPaused = paused
            try connection.execute("UPDATE discount_code SET document = \(code.document) WHERE code = \(name)")
            return true
        }
    }

    public func delete(_ name: String) async throws(DiscountCodeError) -> Bool {
        try await run { connection in
            guard try Self.document(name, locking: true, on: connection) != nil else { return false }
            if try connection.row("SELECT 1 FROM discount_use WHERE code = \(name) LIMIT 1") != nil { throw DiscountCodeError.used(name) }
            return try connection.execute("DELETE FROM discount_code WHERE code = \(name)") == 1
        }
    }

    public func uses(of name: String, customer: String) async throws(DiscountCodeError) -> (inAll: Int, byCustomer: Int) {
        try await run(.read) { connection in try Self.count(name, customer, on: connection) }
    }

    /// Holds a use of `name` for `order` in `connection`'s transaction unless `refusal` (given the code as it stands, or
    /// nil for none, and its uses held in all and by `customer`) says why not.
    public static func hold(
        _ name: String, order: String, customer: String, at date: Date, on connection: any SQLConnection,
        refusal: (DiscountCode?, Int, Int) -> DiscountRefusal?
    ) throws -> Result<DiscountCode, DiscountRefusal> {
        let code = try document(name, locking: true, on: connection)
        let (inAll, byCustomer) = try count(name, customer, on: connection)
        if let refusal = refusal(code, inAll, byCustomer) { return .failure(refusal) }
        guard let code else { return .failure(.unknown) }
        try connection.execute("INSERT INTO discount_use (order_id, code, customer, held_at) VALUES (\(order), \(name), \(customer), \(date))")
        return .success(code)
    }

    /// Lets the use `order` held go, in `connection`'s transaction (the one that declines or cancels the order).
    public static func release(order: String, at date: Date, on connection: any SQLConnection) throws {
        try connection.execute("UPDATE discount_use SET released_at = \(date) WHERE order_id = \(order) AND released_at IS NULL")
    }

    private static func document(_ name: String, locking: Bool, on connection: any SQLConnection) throws -> DiscountCode? {
        try connection.value("SELECT document FROM discount_code WHERE code = \(name)\(raw: locking ? connection.forUpdate : "")", as: String.self)
            .flatMap(DiscountCode.decoded)
    }

    private static func count(_ name: String, _ customer: String, on connection: any SQLConnection) throws -> (inAll: Int, byCustomer: Int) {
        let row = try connection.row(
            """
            SELECT count(*) AS in_all, coalesce(sum(CASE WHEN customer = \(customer) THEN 1 ELSE 0 END), 0) AS by_customer
            FROM discount_use WHERE code = \(name) AND released_at IS NULL
            """)
        return (try row?["in_all"] ?? 0, try row?["by_customer"] ?? 0)
    }
}

struct DiscountRow: Sendable {
    var document: String
    var uses: Int
}
