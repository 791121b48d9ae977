import Foundation
import GRDB
import ShopModels
import ShopPorts

/// The discount codes and their uses in SQLite. An order begun with a code counts the uses and holds one in its write
/// transaction (`hold`), which
/// SQLite runs alone: two takers of the last use cannot both have it.
public struct SQLiteDiscountCodes: DiscountCodes {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    private func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T, writing: Bool = true) async throws(DiscountCodeError) -> T {
        do {
            return try await writing ? database.write(body) : database.read(body)
        } catch {
            throw .storage("\(error)")
        }
    }

    public func create(_ code: DiscountCode, at date: Date) async throws(DiscountCodeError) {
        let inserted = try await run { db in
            try db.execute(
                sql: "INSERT INTO discount_code (code, document, created_at) VALUES (?, ?, ?) ON CONFLICT (code) DO NOTHING",
                arguments: [code.code, code.document, date.timeIntervalSince1970])
            return db.changesCount == 1
        }
        guard inserted else { throw .exists(code.code) }
    }

    public func code(_ name: String) async throws(DiscountCodeError) -> DiscountCode? {
        try await run(
            { db in try String.fetchOne(db, sql: "SELECT document FROM discount_code WHERE code = ?", arguments: [name]).flatMap(DiscountCode.decoded)
            },
            writing: false)
    }

    public func all() async throws(DiscountCodeError) -> [(code: DiscountCode, uses: Int)] {
        let rows = try await run(
            { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT document, (SELECT count(*) FROM discount_use u WHERE u.code = c.code AND u.released_at IS NULL) AS uses
                        FROM discount_code c ORDER BY code
                        """
                ).map { (document: $0["document"] as String, uses: $0["uses"] as Int) }
            }, writing: false)
        return rows.compactMap { row in DiscountCode.decoded(row.document).map { ($0, row.uses) } }
    }

    public func setPaused(_ name: String, _ paused: Bool) async throws(DiscountCodeError) -> Bool {
        try await run { db in
            guard
                var code = try String.fetchOne(db, sql: "SELECT document FROM discount_code WHERE code = ?", arguments: [name]).flatMap(
                    DiscountCode.decoded)
            else { return false }
            code.isPaused = paused
            try db.execute(sql: "UPDATE discount_code SET document = ? WHERE code = ?", arguments: [code.document, name])
            return true
        }
    }

    public func delete(_ name: String) async throws(DiscountCodeError) -> Bool {
        // Answered, not thrown, from inside the transaction: the database wraps what its body throws.
        let deleted: Bool? = try await run { db in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM discount_use WHERE code = ?", arguments: [name]) == 0 else { return nil }
            try db.execute(sql: "DELETE FROM discount_code WHERE code = ?", arguments: [name])
            return db.changesCount == 1
        }
        guard let deleted else { throw .used(name) }
        return deleted
    }

    public func uses(of name: String, customer: String) async throws(DiscountCodeError) -> (inAll: Int, byCustomer: Int) {
        let counts = try await run({ db in try Self.count(db, name, customer) }, writing: false)
        return (counts.0, counts.1)
    }

    /// Holds a use of `name` for `order` in `db`'s transaction unless `refusal` (given the code as it stands, or nil for
    /// none, and its uses held in all and by `customer`) says why not. A placed order holds its use this way, in the
    /// transaction that reserves its stock.
    static func hold(
        _ name: String, order: String, customer: String, at date: Date, in db: Database,
        refusal: (DiscountCode?, Int, Int) -> DiscountRefusal?
    ) throws -> Result<DiscountCode, DiscountRefusal> {
        let code = try String.fetchOne(db, sql: "SELECT document FROM discount_code WHERE code = ?", arguments: [name]).flatMap(
            DiscountCode.decoded)
        let (inAll, byCustomer) = try count(db, name, customer)
        if let refusal = refusal(code, inAll, byCustomer) { return .failure(refusal) }
        guard let code else { return .failure(.unknown) }
        try db.execute(
            sql: "INSERT INTO discount_use (order_id, code, customer, held_at) VALUES (?, ?, ?, ?)",
            arguments: [order, name, customer, date.timeIntervalSince1970])
        return .success(code)
    }

    /// Lets the use `order` held go, in `db`'s transaction (the one that declines or cancels the order).
    static func release(order: String, at date: Date, in db: Database) throws {
        try db.execute(
            sql: "UPDATE discount_use SET released_at = ? WHERE order_id = ? AND released_at IS NULL",
            arguments: [date.timeIntervalSince1970, order])
    }

    private static func count(_ db: Database, _ name: String, _ customer: String) throws -> (Int, Int) {
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT count(*) AS in_all, coalesce(sum(CASE WHEN customer = ? THEN 1 ELSE 0 END), 0) AS by_customer
                FROM discount_use WHERE code = ? AND released_at IS NULL
                """, arguments: [customer, name])
        return (row?["in_all"] ?? 0, row?["by_customer"] ?? 0)
    }
}
