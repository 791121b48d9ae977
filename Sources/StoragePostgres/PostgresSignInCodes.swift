import Foundation
import PostgresNIO
import ShopPorts
import StorageRows

/// Codes sent by email, in PostgreSQL: keyed hashes only (`sign_in_code`), and the requests counted for the hourly
/// limits, shared by every host, so asking on another host counts too.
public struct PostgresSignInCodes: SignInCodeStore {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func file(_ hash: String, email: String, purpose: String, client: String, at date: Date, limits: CodeLimits) async throws -> Bool {
        let (now, hourAgo, expires) = (date.timeIntervalSince1970, date.timeIntervalSince1970 - 3_600, date.timeIntervalSince1970 + limits.lifetime)
        return try await database.transaction { connection in
            // One email's requests are counted one at a time: two hosts cannot both take its last one.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(email)))", logger: PostgresDatabase.quiet)
            var counts: (byEmail: Int64, byClient: Int64) = (0, 0)
            for try await (byEmail, byClient) in try await connection.query(
                """
                SELECT (SELECT count(*) FROM sign_in_code_request WHERE email = \(email) AND at > \(hourAgo))::int8,
                       (SELECT count(*) FROM sign_in_code_request WHERE client = \(client) AND at > \(hourAgo))::int8
                """, logger: PostgresDatabase.quiet
            ).decode((Int64, Int64).self) {
                counts = (byEmail, byClient)
            }
            guard counts.byEmail < limits.perEmailPerHour, counts.byClient < limits.perClientPerHour else { return false }
            try await connection.query(
                "INSERT INTO sign_in_code_request (id, email, client, at) VALUES (\(UUID().uuidString), \(email), \(client), \(now))",
                logger: PostgresDatabase.quiet)
            try await connection.query("DELETE FROM sign_in_code_request WHERE at <= \(hourAgo)", logger: PostgresDatabase.quiet)
            try await connection.query(
                """
                INSERT INTO sign_in_code (email, purpose, code_hash, expires_at) VALUES (\(email), \(purpose), \(hash), \(expires))
                ON CONFLICT (email, purpose) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at, tries = 0, used_at = NULL
                """, logger: PostgresDatabase.quiet)
            return true
        }
    }

    public func check(_ hash: String, email: String, purpose: String, at date: Date, limits: CodeLimits) async throws -> CodeCheck {
        let now = date.timeIntervalSince1970
        return try await database.transaction { connection in
            // The row locked: two tries at once are counted one after the other.
            let row = try await connection.query(
                "SELECT code_hash, expires_at, tries, used_at FROM sign_in_code WHERE email = \(email) AND purpose = \(purpose) FOR UPDATE",
                logger: PostgresDatabase.quiet
            ).collect().first?.decode((String, Double, Int, Double?).self)
            let (verdict, countsTry) = SignInCodeVerdict.of(
                storedHash: row?.0, expiresAt: row?.1, tries: row?.2 ?? 0, usedAt: row?.3, typedHash: hash, at: now, limits: limits.tries)
            if countsTry {
                let used: Double? = verdict == .accepted ? now : nil
                try await connection.query(
                    "UPDATE sign_in_code SET tries = tries + 1, used_at = \(used) WHERE email = \(email) AND purpose = \(purpose)",
                    logger: PostgresDatabase.quiet)
            }
            return verdict
        }
    }
}
