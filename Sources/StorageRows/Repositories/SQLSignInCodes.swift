import Foundation
import ShopPorts

/// Codes sent by email: keyed hashes only (`sign_in_code`), the requests counted for the hourly limits, and the wrong
/// guesses counted per email (`sign_in_code_guess`), shared by every host, so asking or guessing on another host
/// counts too.
public struct SQLSignInCodes: SignInCodeRepository {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func file(_ hash: String, email: String, purpose: String, client: String, at date: Date, limits: CodeLimits) async throws -> Bool {
        let (now, hourAgo) = (date.timeIntervalSince1970, date.timeIntervalSince1970 - 3_600)
        return try await database.run(.write) { connection in
            // One email's requests are counted one at a time: two hosts cannot both take its last one.
            try Self.lock(email, on: connection)
            let byEmail: Int = try connection.value("SELECT count(*) FROM sign_in_code_request WHERE email = \(email) AND at > \(hourAgo)") ?? 0
            let byClient: Int = try connection.value("SELECT count(*) FROM sign_in_code_request WHERE client = \(client) AND at > \(hourAgo)") ?? 0
            // Requests over a limit are not counted either: a client asking on and on is not kept out for longer.
            guard byEmail < limits.perEmailPerHour, byClient < limits.perClientPerHour else { return false }
            try connection.execute(
                "INSERT INTO sign_in_code_request (id, email, client, at) VALUES (\(UUID().uuidString), \(email), \(client), \(now))")
            try connection.execute("DELETE FROM sign_in_code_request WHERE at <= \(hourAgo)")
            try connection.execute(
                "DELETE FROM sign_in_code WHERE email = \(email) AND purpose = \(purpose) AND (expires_at <= \(now) OR used_at IS NOT NULL)")
            try connection.execute(
                """
                INSERT INTO sign_in_code (email, purpose, code_hash, expires_at) VALUES (\(email), \(purpose), \(hash), \(now + limits.lifetime))
                ON CONFLICT DO NOTHING
                """)
            return true
        }
    }

    public func check(_ hash: String, email: String, purpose: String, at date: Date, limits: CodeLimits) async throws -> CodeCheck {
        let now = date.timeIntervalSince1970
        return try await database.run(.write) { connection in
            // One email's checks are counted one at a time, on every host: two guesses at once both count.
            try Self.lock("guess:" + email, on: connection)
            let codes = try connection.rows("SELECT code_hash, expires_at, used_at FROM sign_in_code WHERE email = \(email) AND purpose = \(purpose)")
                .map { SignInCodeVerdict.Code(hash: try $0["code_hash"], expiresAt: try $0["expires_at"], usedAt: try $0["used_at"]) }
            try connection.execute("DELETE FROM sign_in_code_guess WHERE at <= \(now - 86_400)")
            let wrong = try connection.row(
                """
                SELECT coalesce(sum(CASE WHEN at > \(now - 3_600) THEN 1 ELSE 0 END), 0) AS in_hour, count(*) AS in_day
                FROM sign_in_code_guess WHERE email = \(email)
                """)
            let (verdict, countsWrong) = SignInCodeVerdict.of(
                codes: codes, wrongInHour: try wrong?["in_hour"] ?? 0, wrongInDay: try wrong?["in_day"] ?? 0, typedHash: hash, at: now,
                limits: limits)
            if countsWrong {
                try connection.execute("INSERT INTO sign_in_code_guess (id, email, at) VALUES (\(UUID().uuidString), \(email), \(now))")
            } else if verdict == .accepted {
                try connection.execute(
                    "UPDATE sign_in_code SET used_at = \(now) WHERE email = \(email) AND purpose = \(purpose) AND used_at IS NULL")
            }
            return verdict
        }
    }

    /// Holds `key` for the transaction on PostgreSQL; SQLite's write transaction runs alone already.
    private static func lock(_ key: String, on connection: any SQLConnection) throws {
        guard connection.dialect == .postgres else { return }
        try connection.execute("SELECT pg_advisory_xact_lock(hashtext(\(key)))")
    }
}
