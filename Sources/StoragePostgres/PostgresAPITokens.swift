import Foundation
import PostgresNIO
import ShopPorts

/// API tokens in PostgreSQL: each secret's SHA-256, never the secret.
public final class PostgresAPITokenRepository: APITokenRepository {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    private typealias Columns = (String, String, String, String, String, String, Double, Double?, Double?)
    private static let columns = "id, name, owner, scope, secret_hash, last_four, created_at, last_used_at, revoked_at"

    public func add(_ token: APITokenRecord) async throws {
        _ = try await database.writeInOneStatement { connection in
            try await connection.query("""
                INSERT INTO api_token (id, name, owner, scope, secret_hash, last_four, created_at)
                VALUES (\(token.id), \(token.name), \(token.owner), \(token.scope.rawValue), \(token.secretHash), \(token.lastFour), \(token.createdAt.timeIntervalSince1970))
                """, logger: PostgresDatabase.quiet)
        }
    }

    public func token(secretHash: String) async throws -> APITokenRecord? {
        try await database.read { connection in
            let rows = try await connection.query(
                "SELECT \(unescaped: Self.columns) FROM api_token WHERE secret_hash = \(secretHash)", logger: PostgresDatabase.quiet
            )
            return try await Self.records(rows).first
        }
    }

    public func tokens(owner: String?) async throws -> [APITokenRecord] {
        try await database.read { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.columns) FROM api_token WHERE \(owner)::text IS NULL OR owner = \(owner) ORDER BY created_at, id
                """, logger: PostgresDatabase.quiet)
            return try await Self.records(rows)
        }
    }

    public func revoke(id: String, owner: String?, at time: Date) async throws -> APITokenRecord? {
        try await database.writeInOneStatement { connection in
            let rows = try await connection.query("""
                UPDATE api_token SET revoked_at = COALESCE(revoked_at, \(time.timeIntervalSince1970))
                WHERE id = \(id) AND (\(owner)::text IS NULL OR owner = \(owner)) RETURNING \(unescaped: Self.columns)
                """, logger: PostgresDatabase.quiet)
            return try await Self.records(rows).first
        }
    }

    public func markUsed(id: String, at time: Date) async throws {
        _ = try await database.writeInOneStatement { connection in
            try await connection.query("UPDATE api_token SET last_used_at = \(time.timeIntervalSince1970) WHERE id = \(id)", logger: PostgresDatabase.quiet)
        }
    }

    private static func records(_ rows: PostgresRowSequence) async throws -> [APITokenRecord] {
        var records: [APITokenRecord] = []
        for try await (id, name, owner, scope, hash, lastFour, created, used, revoked) in rows.decode(Columns.self) {
            guard let scope = APITokenScope(rawValue: scope) else { continue }
            records.append(APITokenRecord(
                id: id, name: name, owner: owner, scope: scope, secretHash: hash, lastFour: lastFour, createdAt: Date(timeIntervalSince1970: created),
                lastUsedAt: used.map(Date.init(timeIntervalSince1970:)), revokedAt: revoked.map(Date.init(timeIntervalSince1970:))
            ))
        }
        return records
    }
}

/// Idempotency keys in PostgreSQL, one row per owner and key.
public final class PostgresIdempotencyRepository: IdempotencyRepository {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    public func claim(_ request: IdempotentRequest, at time: Date) async throws -> IdempotentRequest {
        try await database.writeInOneStatement { connection in
            // The row inserted, or the one already there: a CTE sees the table as it was before the statement.
            let rows = try await connection.query("""
                WITH inserted AS (
                    INSERT INTO api_idempotency (owner, key, request_hash, created_at)
                    VALUES (\(request.owner), \(request.key), \(request.requestHash), \(time.timeIntervalSince1970))
                    ON CONFLICT (owner, key) DO NOTHING RETURNING request_hash, order_number
                )
                SELECT request_hash, order_number FROM inserted
                UNION ALL SELECT request_hash, order_number FROM api_idempotency WHERE owner = \(request.owner) AND key = \(request.key)
                LIMIT 1
                """, logger: PostgresDatabase.quiet)
            for try await (hash, number) in rows.decode((String, String?).self) {
                return IdempotentRequest(owner: request.owner, key: request.key, requestHash: hash, orderNumber: number)
            }
            return request
        }
    }

    public func attach(orderNumber: String, owner: String, key: String) async throws {
        _ = try await database.writeInOneStatement { connection in
            try await connection.query(
                "UPDATE api_idempotency SET order_number = \(orderNumber) WHERE owner = \(owner) AND key = \(key)", logger: PostgresDatabase.quiet
            )
        }
    }
}
