import Foundation
import GRDB
import ShopPorts
import StorageRows

/// Codes sent by email, in SQLite: keyed hashes only (`sign_in_code`), the requests counted for the hourly limits, and
/// the wrong guesses counted per email (`sign_in_code_guess`).
public struct SQLiteSignInCodes: SignInCodeRepository {
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
                sql: "DELETE FROM sign_in_code WHERE email = ? AND purpose = ? AND (expires_at <= ? OR used_at IS NOT NULL)",
                arguments: [email, purpose, now])
            try db.execute(
                sql: "INSERT OR IGNORE INTO sign_in_code (email, purpose, code_hash, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [email, purpose, hash, now + limits.lifetime])
            return true
        }
    }

    public func check(_ hash: String, email: String, purpose: String, at date: Date, limits: CodeLimits) async throws -> CodeCheck {
        let now = date.timeIntervalSince1970
        return try await database.write { db in
            let codes = try Row.fetchAll(
                db, sql: "SELECT code_hash, expires_at, used_at FROM sign_in_code WHERE email = ? AND purpose = ?", arguments: [email, purpose]
            ).map { SignInCodeVerdict.Code(hash: $0["code_hash"], expiresAt: $0["expires_at"], usedAt: $0["used_at"]) }
            try db.execute(sql: "DELETE FROM sign_in_code_guess WHERE at <= ?", arguments: [now - 86_400])
            let inHour = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM sign_in_code_guess WHERE email = ? AND at > ?", arguments: [email, now - 3_600])
            let inDay = try Int.fetchOne(db, sql: "SELECT count(*) FROM sign_in_code_guess WHERE email = ?", arguments: [email])
            let (verdict, countsWrong) = SignInCodeVerdict.of(
                codes: codes, wrongInHour: inHour ?? 0, wrongInDay: inDay ?? 0, typedHash: hash, at: now, limits: limits)
            if countsWrong {
                try db.execute(
                    sql: "INSERT INTO sign_in_code_guess (id, email, at) VALUES (?, ?, ?)", arguments: [UUID().uuidString, email, now])
            } else if verdict == .accepted {
                try db.execute(
                    sql: "UPDATE sign_in_code SET used_at = ? WHERE email = ? AND purpose = ? AND used_at IS NULL", arguments: [now, email, purpose])
            }
            return verdict
        }
    }
}
