import Foundation
import GRDB
import ShopPorts
import StorageRows

/// Codes sent by email, in SQLite: keyed hashes only (`sign_in_code`), and the requests counted for the hourly limits.
public struct SQLiteSignInCodes: SignInCodeStore {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func file(_ hash: String, email: String, purpose: String, client: String, at date: Date, limits: CodeLimits) async throws -> Bool {
        let (now, hourAgo) = (date.timeIntervalSince1970, date.timeIntervalSince1970 - 3_600)
        return try await database.write { db in
            let byEmail =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sign_in_code_request WHERE email = ? AND at > ?", arguments: [email, hourAgo]) ?? 0
            let byClient =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sign_in_code_request WHERE client = ? AND at > ?", arguments: [client, hourAgo]) ?? 0
            // Requests over a limit are not counted either: a client asking on and on is not kept out for longer.
            guard byEmail < limits.perEmailPerHour, byClient < limits.perClientPerHour else { return false }
            try db.execute(
                sql: "INSERT INTO sign_in_code_request (id, email, client, at) VALUES (?, ?, ?, ?)",
                arguments: [UUID().uuidString, email, client, now])
            try db.execute(sql: "DELETE FROM sign_in_code_request WHERE at <= ?", arguments: [hourAgo])
            try db.execute(
                sql: """
                    INSERT INTO sign_in_code (email, purpose, code_hash, expires_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (email, purpose) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at, tries = 0,
                        used_at = NULL
                    """, arguments: [email, purpose, hash, now + limits.lifetime])
            return true
        }
    }

    public func check(_ hash: String, email: String, purpose: String, at date: Date, limits: CodeLimits) async throws -> CodeCheck {
        let now = date.timeIntervalSince1970
        return try await database.write { db in
            let row = try Row.fetchOne(db, sql: "SELECT * FROM sign_in_code WHERE email = ? AND purpose = ?", arguments: [email, purpose])
            let (verdict, countsTry) = SignInCodeVerdict.of(
                storedHash: row?["code_hash"], expiresAt: row?["expires_at"], tries: row?["tries"] ?? 0, usedAt: row?["used_at"], typedHash: hash,
                at: now, limits: limits.tries)
            if countsTry {
                try db.execute(
                    sql: "UPDATE sign_in_code SET tries = tries + 1, used_at = ? WHERE email = ? AND purpose = ?",
                    arguments: [verdict == .accepted ? now : nil, email, purpose])
            }
            return verdict
        }
    }
}
