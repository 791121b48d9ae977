import Foundation
import PostgresNIO
import ShopPorts
import StorageRows

/// Codes sent by email, in PostgreSQL: keyed hashes only (`sign_in_code`), the requests counted for the hourly limits
/// and the wrong guesses per email (`sign_in_code_guess`), shared by every host, so asking or guessing on another host
/// counts too.
public struct PostgresSignInCodes: SignInCodeRepository {
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
                DELETE FROM sign_in_code WHERE email = \(email) AND purpose = \(purpose) AND (expires_at <= \(now) OR used_at IS NOT NULL)
                """, logger: PostgresDatabase.quiet)
            try await connection.query(
                """
                INSERT INTO sign_in_code (email, purpose, code_hash, expires_at) VALUES (\(email), \(purpose), \(hash), \(expires))
                ON CONFLICT DO NOTHING
                """, logger: PostgresDatabase.quiet)
            return true
        }
    }

    public func check(_ hash: String, email: String, purpose: String, at date: Date, limits: CodeLimits) async throws -> CodeCheck {
        let now = date.timeIntervalSince1970
        return try await database.transaction { connection in
            // One email's checks are counted one at a time, on every host: two guesses at once both count.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\("guess:" + email)))", logger: PostgresDatabase.quiet)
            let codes = try await connection.query(
                "SELECT code_hash, expires_at, used_at FROM sign_in_code WHERE email = \(email) AND purpose = \(purpose)",
                logger: PostgresDatabase.quiet
            ).collect().map { row in
                let (hash, expires, used) = try row.decode((String, Double, Double?).self)
                return SignInCodeVerdict.Code(hash: hash, expiresAt: expires, usedAt: used)
            }
            try await connection.query("DELETE FROM sign_in_code_guess WHERE at <= \(now - 86_400)", logger: PostgresDatabase.quiet)
            var wrong: (inHour: Int64, inDay: Int64) = (0, 0)
            for try await (inHour, inDay) in try await connection.query(
                """
                SELECT count(*) FILTER (WHERE at > \(now - 3_600))::int8, count(*)::int8 FROM sign_in_code_guess WHERE email = \(email)
                """, logger: PostgresDatabase.quiet
            ).decode((Int64, Int64).self) {
                wrong = (inHour, inDay)
            }
            let (verdict, countsWrong) = SignInCodeVerdict.of(
                codes: codes, wrongInHour: Int(wrong.inHour), wrongInDay: Int(wrong.inDay), typedHash: hash, at: now, limits: limits)
            if countsWrong {
                try await connection.query(
                    "INSERT INTO sign_in_code_guess (id, email, at) VALUES (\(UUID().uuidString), \(email), \(now))", logger: PostgresDatabase.quiet)
            } else if verdict == .accepted {
                try await connection.query(
                    "UPDATE sign_in_code SET used_at = \(now) WHERE email = \(email) AND purpose = \(purpose) AND used_at IS NULL",
                    logger: PostgresDatabase.quiet)
            }
            return verdict
        }
    }
}
