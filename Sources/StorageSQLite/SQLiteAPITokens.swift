import Foundation
import GRDB
import LiveObjects
import ShopPorts

/// API tokens in SQLite: each secret's SHA-256, never the secret.
public final class SQLiteAPITokenRepository: APITokenRepository {
    private let database: SQLiteDatabase
    public init(database: SQLiteDatabase) { self.database = database }

    public func add(_ token: APITokenRecord) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO api_token (id, name, owner, scope, secret_hash, last_four, created_at, session_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    token.id, token.name, token.owner, token.scope.rawValue, token.secretHash, token.lastFour, token.createdAt.timeIntervalSince1970,
                    token.session,
                ])
        }
    }

    public func token(secretHash: String) async throws -> APITokenRecord? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM api_token WHERE secret_hash = ?", arguments: [secretHash]).flatMap(Self.record)
        }
    }

    public func tokens(owner: String?) async throws -> [APITokenRecord] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM api_token WHERE ? IS NULL OR owner = ? ORDER BY created_at, id", arguments: [owner, owner])
                .compactMap(Self.record)
        }
    }

    public func revoke(id: String, owner: String?, at time: Date) async throws -> APITokenRecord? {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE api_token SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND (? IS NULL OR owner = ?)
                    """, arguments: [time.timeIntervalSince1970, id, owner, owner])
            return try Row.fetchOne(db, sql: "SELECT * FROM api_token WHERE id = ? AND (? IS NULL OR owner = ?)", arguments: [id, owner, owner])
                .flatMap(Self.record)
        }
    }

    public func markUsed(id: String, at time: Date) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE api_token SET last_used_at = ? WHERE id = ?", arguments: [time.timeIntervalSince1970, id])
        }
    }

    public func sessionHolds(_ token: APITokenRecord, at time: Date) async throws -> Bool {
        guard let session = token.session else { return true }
        return try await database.read { db in
            try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM account_session WHERE id = ? AND account = ? AND ended_at IS NULL AND expires_at > ?",
                arguments: [session, token.owner, time.timeIntervalSince1970]) ?? false
        }
    }

    private static func record(_ row: Row) -> APITokenRecord? {
        guard let scope = APITokenScope(rawValue: row["scope"]) else { return nil }
        return APITokenRecord(
            id: row["id"], name: row["name"], owner: row["owner"], scope: scope, secretHash: row["secret_hash"], lastFour: row["last_four"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            lastUsedAt: (row["last_used_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:)), session: row["session_id"]
        )
    }
}

/// Idempotency keys in SQLite, one row per owner and key; each claim is one IMMEDIATE transaction.
public final class SQLiteIdempotencyRepository: IdempotencyRepository {
    private let database: SQLiteDatabase
    public init(database: SQLiteDatabase) { self.database = database }

    public func claim(owner: String, key: String, fingerprint: String, at time: Date, abandonedBefore: Date) async throws -> IdempotentClaim {
        try await database.write { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT fingerprint, started_at, status, content_type, body FROM api_idempotency WHERE owner = ? AND key = ?
                    """, arguments: [owner, key])
            let filed = row.map { row in
                FiledIdempotentRequest(
                    fingerprint: row["fingerprint"], startedAt: Date(timeIntervalSince1970: row["started_at"]),
                    answer: (row["status"] as Int?).map {
                        IdempotentAnswer(status: $0, contentType: row["content_type"] ?? "", body: [UInt8]((row["body"] as Data?) ?? Data()))
                    }
                )
            }
            let claim = IdempotentClaim.decide(filed, fingerprint: fingerprint, abandonedBefore: abandonedBefore)
            if claim == .granted {
                try db.execute(
                    sql: """
                        INSERT INTO api_idempotency (owner, key, fingerprint, started_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (owner, key) DO UPDATE SET started_at = excluded.started_at
                        """, arguments: [owner, key, fingerprint, time.timeIntervalSince1970])
            }
            return claim
        }
    }

    public func answer(_ answer: IdempotentAnswer, owner: String, key: String) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE api_idempotency SET status = ?, content_type = ?, body = ? WHERE owner = ? AND key = ?",
                arguments: [answer.status, answer.contentType, Data(answer.body), owner, key])
        }
    }

    public func release(owner: String, key: String) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM api_idempotency WHERE owner = ? AND key = ? AND status IS NULL", arguments: [owner, key])
        }
    }
}

extension SQLiteAPITokenRepository: LiveObject {}
extension SQLiteIdempotencyRepository: LiveObject {}
