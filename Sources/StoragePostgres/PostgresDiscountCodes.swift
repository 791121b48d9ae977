import Foundation
import PostgresNIO
import ShopModels
import ShopPorts

/// The discount codes and their uses in PostgreSQL, shared by every host. An order begun with a code locks the code's
/// row (`FOR UPDATE`, in `hold`)
/// before it counts the uses: two hosts' takers of the last use queue on it, and the second finds none left.
public struct PostgresDiscountCodes: DiscountCodes {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    private func run<T: Sendable>(writing: Bool = true, _ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws(DiscountCodeError) -> T
    {
        do {
            return try await writing ? database.write(body) : database.read(body)
        } catch let error as DiscountCodeError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
    }

    private static func document(_ connection: PostgresConnection, _ name: String, locking: Bool) async throws -> DiscountCode? {
        let rows =
            try await locking
            ? connection.query("SELECT document FROM discount_code WHERE code = \(name) FOR UPDATE", logger: PostgresDatabase.quiet)
            : connection.query("SELECT document FROM discount_code WHERE code = \(name)", logger: PostgresDatabase.quiet)
        for try await document in rows.decode(String.self) { return DiscountCode.decoded(document) }
        return nil
    }

    public func create(_ code: DiscountCode, at date: Date) async throws(DiscountCodeError) {
        let (name, document, stamp) = (code.code, code.document, date.timeIntervalSince1970)
        let inserted = try await run { connection in
            try await !connection.query(
                """
                INSERT INTO discount_code (code, document, created_at) VALUES (\(name), \(document), \(stamp))
                ON CONFLICT (code) DO NOTHING RETURNING code
                """, logger: PostgresDatabase.quiet
            ).collect().isEmpty
        }
        guard inserted else { throw .exists(name) }
    }

    public func code(_ name: String) async throws(DiscountCodeError) -> DiscountCode? {
        try await run(writing: false) { connection in try await Self.document(connection, name, locking: false) }
    }

    public func all() async throws(DiscountCodeError) -> [(code: DiscountCode, uses: Int)] {
        let rows = try await run(writing: false) { connection in
            var rows: [DiscountRow] = []
            for try await (document, uses) in try await connection.query(
                """
                SELECT document, (SELECT count(*) FROM discount_use u WHERE u.code = c.code AND u.released_at IS NULL)
                FROM discount_code c ORDER BY code
                """, logger: PostgresDatabase.quiet
            ).decode((String, Int64).self) {
                rows.append(DiscountRow(document: document, uses: Int(uses)))
            }
            return rows
        }
        return rows.compactMap { row in DiscountCode.decoded(row.document).map { ($0, row.uses) } }
    }

    public func setPaused(_ name: String, _ paused: Bool) async throws(DiscountCodeError) -> Bool {
        try await run { connection in
            guard var code = try await Self.document(connection, name, locking: true) else { return false }
            code.isPaused = paused
            let document = code.document
            try await connection.query("UPDATE discount_code SET document = \(document) WHERE code = \(name)", logger: PostgresDatabase.quiet)
            return true
        }
    }

    public func delete(_ name: String) async throws(DiscountCodeError) -> Bool {
        try await run { connection in
            guard try await Self.document(connection, name, locking: true) != nil else { return false }
            let used = try await !connection.query("SELECT 1 FROM discount_use WHERE code = \(name) LIMIT 1", logger: PostgresDatabase.quiet)
                .collect().isEmpty
            if used { throw DiscountCodeError.used(name) }
            try await connection.query("DELETE FROM discount_code WHERE code = \(name)", logger: PostgresDatabase.quiet)
            return true
        }
    }

    public func uses(of name: String, customer: String) async throws(DiscountCodeError) -> (inAll: Int, byCustomer: Int) {
        let counts = try await run(writing: false) { connection in try await Self.count(connection, name, customer) }
        return (counts.inAll, counts.byCustomer)
    }

    /// Holds a use of `name` for `order` in `connection`'s transaction unless `refusal` (given the code as it stands,
    /// or nil for none, and its uses held in all and by `customer`) says why not. The code's row is locked first, so
    /// takers on every host queue on it. A placed order holds its use this way, in the transaction reserving its stock.
    static func hold(
        _ name: String, order: String, customer: String, at date: Date, on connection: PostgresConnection,
        refusal: @Sendable (DiscountCode?, Int, Int) -> DiscountRefusal?
    ) async throws -> Result<DiscountCode, DiscountRefusal> {
        let code = try await document(connection, name, locking: true)
        let counts = try await count(connection, name, customer)
        if let refusal = refusal(code, counts.inAll, counts.byCustomer) { return .failure(refusal) }
        guard let code else { return .failure(.unknown) }
        let stamp = date.timeIntervalSince1970
        try await connection.query(
            "INSERT INTO discount_use (order_id, code, customer, held_at) VALUES (\(order), \(name), \(customer), \(stamp))",
            logger: PostgresDatabase.quiet)
        return .success(code)
    }

    /// Lets the use `order` held go, in `connection`'s transaction (the one that declines or cancels the order).
    static func release(order: String, at date: Date, on connection: PostgresConnection) async throws {
        let stamp = date.timeIntervalSince1970
        try await connection.query(
            "UPDATE discount_use SET released_at = \(stamp) WHERE order_id = \(order) AND released_at IS NULL", logger: PostgresDatabase.quiet)
    }

    private static func count(_ connection: PostgresConnection, _ name: String, _ customer: String) async throws -> DiscountCounts {
        for try await (inAll, byCustomer) in try await connection.query(
            """
            SELECT count(*), count(*) FILTER (WHERE customer = \(customer)) FROM discount_use WHERE code = \(name) AND released_at IS NULL
            """, logger: PostgresDatabase.quiet
        ).decode((Int64, Int64).self) {
            return DiscountCounts(inAll: Int(inAll), byCustomer: Int(byCustomer))
        }
        return DiscountCounts(inAll: 0, byCustomer: 0)
    }
}

struct DiscountRow: Sendable {
    var document: String
    var uses: Int
}

struct DiscountCounts: Sendable {
    var inAll: Int
    var byCustomer: Int
}
