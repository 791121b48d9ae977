import Foundation
import LiveObjects
import PostgresNIO
import ShopPorts

/// API tokens in PostgreSQL: each secret's SHA-256, never the secret.
public final class PostgresAPITokenRepository: APITokenRepository {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    private typealias Columns = (String, String, String, String, String, String, Double, Double?, Double?, String?)
    private static let columns = "id, name, owner, scope, secret_hash, last_four, created_at, last_used_at, revoked_at, session_id"

    public func add(_ token: APITokenRecord) async throws {
        _ = try await database.writeInOneStatement { connection in
            try await connection.query(
                """
                INSERT INTO api_token (id, name, owner, scope, secret_hash, last_four, created_at, session_id)
                VALUES (\(token.id), \(token.name), \(token.owner), \(token.scope.rawValue), \(token.secretHash), \(token.lastFour), \(token.createdAt.timeIntervalSince1970), \(token.session))
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
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.columns) FROM api_token WHERE \(owner)::text IS NULL OR owner = \(owner) ORDER BY created_at, id
                """, logger: PostgresDatabase.quiet)
            return try await Self.records(rows)
        }
    }

    public func revoke(id: String, owner: String?, at time: Date) async throws -> APITokenRecord? {
        try await database.writeInOneStatement { connection in
            let rows = try await connection.query(
                """
                UPDATE api_token SET revoked_at = COALESCE(revoked_at, \(time.timeIntervalSince1970))
                WHERE id = \(id) AND (\(owner)::text IS NULL OR owner = \(owner)) RETURNING \(unescaped: Self.columns)
                """, logger: PostgresDatabase.quiet)
            return try await Self.records(rows).first
        }
    }

    public func markUsed(id: String, at time: Date) async throws {
        _ = try await database.writeInOneStatement { connection in
            try await connection.query(
                "UPDATE api_token SET last_used_at = \(time.timeIntervalSince1970) WHERE id = \(id)", logger: PostgresDatabase.quiet)
        }
    }

    public func sessionHolds(_ token: APITokenRecord, at time: Date) async throws -> Bool {
        guard let session = token.session else { return true }
        let (owner, stamp) = (token.owner, time.timeIntervalSince1970)
        return try await database.read { connection in
            try await !connection.query(
                """
                SELECT 1 FROM account_session WHERE id = \(session) AND account = \(owner) AND ended_at IS NULL AND expires_at > \(stamp)
                """, logger: PostgresDatabase.quiet
            ).collect().isEmpty
        }
    }

    private static func records(_ rows: PostgresRowSequence) async throws -> [APITokenRecord] {
        var records: [APITokenRecord] = []
        for try await (id, name, owner, scope, hash, lastFour, created, used, revoked, session) in rows.decode(Columns.self) {
            guard let scope = APITokenScope(rawValue: scope) else { continue }
            records.append(
                APITokenRecord(
                    id: id, name: name, owner: owner, scope: scope, secretHash: hash, lastFour: lastFour,
                    createdAt: Date(timeIntervalSince1970: created),
                    lastUsedAt: used.map(Date.init(timeIntervalSince1970:)), revokedAt: revoked.map(Date.init(timeIntervalSince1970:)),
                    session: session
                ))
        }
        return records
    }
}

/// Idempotency keys in PostgreSQL, one row per owner and key; a claim holds the row's lock until it is decided.
public final class PostgresIdempotencyRepository: IdempotencyRepository {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    public func claim(owner: String, key: String, fingerprint: String, at time: Date, abandonedBefore: Date) async throws -> IdempotentClaim {
        try await database.write { connection in
            // Two first claims meet on the key: the second insert waits for the first's transaction, then does nothing.
            let inserted = try await connection.query(
                """
                INSERT INTO api_idempotency (owner, key, fingerprint, started_at) VALUES (\(owner), \(key), \(fingerprint), \(time.timeIntervalSince1970))
                ON CONFLICT (owner, key) DO NOTHING RETURNING true
                """, logger: PostgresDatabase.quiet
            ).collect()
            guard inserted.isEmpty else { return .granted }
            let rows = try await connection.query(
                """
                SELECT fingerprint, started_at, status, content_type, body FROM api_idempotency WHERE owner = \(owner) AND key = \(key) FOR UPDATE
                """, logger: PostgresDatabase.quiet)
            var filed: FiledIdempotentRequest?
            for try await (print, started, status, type, body) in rows.decode((String, Double, Int?, String?, ByteBuffer?).self) {
                filed = FiledIdempotentRequest(
                    fingerprint: print, startedAt: Date(timeIntervalSince1970: started),
                    answer: status.map { IdempotentAnswer(status: $0, contentType: type ?? "", body: body.map { Array($0.readableBytesView) } ?? []) }
                )
            }
            let claim = IdempotentClaim.decide(filed, fingerprint: fingerprint, abandonedBefore: abandonedBefore)
            if claim == .granted {
                try await connection.query(
                    "UPDATE api_idempotency SET started_at = \(time.timeIntervalSince1970) WHERE owner = \(owner) AND key = \(key)",
                    logger: PostgresDatabase.quiet
                )
            }
            return claim
        }
    }

    public func answer(_ answer: IdempotentAnswer, owner: String, key: String) async throws {
        _ = try await database.writeInOneStatement { connection in
            try await connection.query(
                """
                UPDATE api_idempotency SET status = \(answer.status), content_type = \(answer.contentType), body = \(ByteBuffer(bytes: answer.body))
                WHERE owner = \(owner) AND key = \(key)
                """, logger: PostgresDatabase.quiet)
        }
    }

    public func release(owner: String, key: String) async throws {
        _ = try await database.writeInOneStatement { connection in
            try await connection.query(
                "DELETE FROM api_idempotency WHERE owner = \(owner) AND key = \(key) AND status IS NULL", logger: PostgresDatabase.quiet)
        }
    }
}

extension PostgresAPITokenRepository: LiveObject {}
extension PostgresIdempotencyRepository: LiveObject {}
