import Foundation
import LiveObjects
import ShopPorts

/// API tokens: each secret's SHA-256, never the secret.
public final class SQLAPITokenRepository: APITokenRepository {
    private let database: any SQLDatabase
    public init(database: any SQLDatabase) { self.database = database }

    public func add(_ token: APITokenRecord) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute(
                """
                INSERT INTO api_token (id, name, owner, scope, secret_hash, last_four, created_at, session_id)
                VALUES (\(token.id), \(token.name), \(token.owner), \(token.scope.rawValue), \(token.secretHash), \(token.lastFour), \(token.createdAt),
                    \(token.session))
                """)
        }
    }

    public func token(secretHash: String) async throws -> APITokenRecord? {
        try await records("WHERE secret_hash = \(secretHash)").first
    }

    public func tokens(owner: String?) async throws -> [APITokenRecord] {
        try await records("WHERE CAST(\(owner) AS TEXT) IS NULL OR owner = \(owner) ORDER BY created_at, id")
    }

    public func revoke(id: String, owner: String?, at time: Date) async throws -> APITokenRecord? {
        try await database.run(.writeOneStatement) { connection in
            try connection.rows(
                """
                UPDATE api_token SET revoked_at = coalesce(revoked_at, \(time))
                WHERE id = \(id) AND (CAST(\(owner) AS TEXT) IS NULL OR owner = \(owner)) RETURNING \(raw: Self.columns)
                """
            ).compactMap(Self.record).first
        }
    }

    public func markUsed(id: String, at time: Date) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute("UPDATE api_token SET last_used_at = \(time) WHERE id = \(id)")
        }
    }

    public func sessionHolds(_ token: APITokenRecord, at time: Date) async throws -> Bool {
        guard let session = token.session else { return true }
        return try await database.run(.read) { connection in
            try connection.row(
                "SELECT 1 FROM account_session WHERE id = \(session) AND account = \(token.owner) AND ended_at IS NULL AND expires_at > \(time)")
                != nil
        }
    }

    private static let columns = "id, name, owner, scope, secret_hash, last_four, created_at, last_used_at, revoked_at, session_id"

    private func records(_ filter: SQLStatement) async throws -> [APITokenRecord] {
        try await database.run(.read) { connection in
            try connection.rows("SELECT \(raw: Self.columns) FROM api_token \(filter)").compactMap(Self.record)
        }
    }

    private static func record(_ row: SQLRow) throws -> APITokenRecord? {
        guard let scope = APITokenScope(rawValue: try row["scope"]) else { return nil }
        return APITokenRecord(
            id: try row["id"], name: try row["name"], owner: try row["owner"], scope: scope, secretHash: try row["secret_hash"],
            lastFour: try row["last_four"], createdAt: try row["created_at"], lastUsedAt: try row["last_used_at"], revokedAt: try row["revoked_at"],
            session: try row["session_id"])
    }
}

/// Idempotency keys, one row per owner and key; a claim holds the row until it is decided.
public final class SQLIdempotencyRepository: IdempotencyRepository {
    private let database: any SQLDatabase
    public init(database: any SQLDatabase) { self.database = database }

    public func claim(owner: String, key: String, fingerprint: String, at time: Date, abandonedBefore: Date) async throws -> IdempotentClaim {
        try await database.run(.write) { connection in
            // Two first claims meet on the key: on PostgreSQL the second insert waits for the first's transaction, then
            // does nothing; SQLite's write transaction runs alone.
            let inserted = try connection.execute(
                """
                INSERT INTO api_idempotency (owner, key, fingerprint, started_at) VALUES (\(owner), \(key), \(fingerprint), \(time))
                ON CONFLICT (owner, key) DO NOTHING
                """)
            guard inserted == 0 else { return .granted }
            let filed = try connection.row(
                """
                SELECT fingerprint, started_at, status, content_type, body FROM api_idempotency WHERE owner = \(owner) AND key = \(key)\
                \(raw: connection.forUpdate)
                """
            ).map { row in
                FiledIdempotentRequest(
                    fingerprint: try row["fingerprint"], startedAt: try row["started_at"],
                    answer: try (row["status"] as Int?).map {
                        IdempotentAnswer(status: $0, contentType: try row["content_type"] ?? "", body: [UInt8](try row["body"] as Data? ?? Data()))
                    })
            }
            let claim = IdempotentClaim.decide(filed, fingerprint: fingerprint, abandonedBefore: abandonedBefore)
            if claim == .granted {
                try connection.execute("UPDATE api_idempotency SET started_at = \(time) WHERE owner = \(owner) AND key = \(key)")
            }
            return claim
        }
    }

    public func answer(_ answer: IdempotentAnswer, owner: String, key: String) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute(
                """
                UPDATE api_idempotency SET status = \(answer.status), content_type = \(answer.contentType), body = \(Data(answer.body))
                WHERE owner = \(owner) AND key = \(key)
                """)
        }
    }

    public func release(owner: String, key: String) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute("DELETE FROM api_idempotency WHERE owner = \(owner) AND key = \(key) AND status IS NULL")
        }
    }
}

extension SQLAPITokenRepository: LiveObject {}
extension SQLIdempotencyRepository: LiveObject {}
