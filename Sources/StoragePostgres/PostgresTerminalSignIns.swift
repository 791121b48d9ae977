import Foundation
import PostgresNIO
import ShopPorts

/// Sign-ins a terminal started and a browser finishes, in PostgreSQL (`terminal_sign_in`), shared by every host.
public struct PostgresTerminalSignIns: TerminalSignIns {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func file(handleHash: String, provider: String, at date: Date) async throws {
        let (stamp, old) = (date.timeIntervalSince1970, date.timeIntervalSince1970 - 86_400)
        _ = try await database.write { connection in
            try await connection.query("DELETE FROM terminal_sign_in WHERE created_at < \(old)", logger: PostgresDatabase.quiet)
            try await connection.query(
                "INSERT INTO terminal_sign_in (handle_hash, provider, created_at) VALUES (\(handleHash), \(provider), \(stamp))",
                logger: PostgresDatabase.quiet)
        }
    }

    public func open(handleHash: String, stateHash: String, at date: Date, lifetime: TimeInterval) async throws -> String? {
        let oldest = date.timeIntervalSince1970 - lifetime
        return try await database.write { connection in
            for try await provider in try await connection.query(
                """
                UPDATE terminal_sign_in SET state_hash = \(stateHash)
                WHERE handle_hash = \(handleHash) AND finished_at IS NULL AND created_at > \(oldest) RETURNING provider
                """, logger: PostgresDatabase.quiet
            ).decode(String.self) {
                return provider
            }
            return nil
        }
    }

    public func handle(forState stateHash: String) async throws -> String? {
        try await database.read { connection in
            for try await handle in try await connection.query(
                "SELECT handle_hash FROM terminal_sign_in WHERE state_hash = \(stateHash)", logger: PostgresDatabase.quiet
            ).decode(String.self) {
                return handle
            }
            return nil
        }
    }

    public func finish(handleHash: String, outcome: TerminalSignInOutcome, at date: Date) async throws -> Bool {
        let (text, stamp) = (outcome.encoded, date.timeIntervalSince1970)
        return try await database.write { connection in
            try await !connection.query(
                """
                UPDATE terminal_sign_in SET outcome = \(text), finished_at = \(stamp)
                WHERE handle_hash = \(handleHash) AND finished_at IS NULL RETURNING handle_hash
                """, logger: PostgresDatabase.quiet
            ).collect().isEmpty
        }
    }

    public func take(handleHash: String) async throws -> TerminalSignInOutcome? {
        let stamp = Date().timeIntervalSince1970
        // One statement takes it: two hosts cannot both have it. The identity leaves the table with it.
        let text: String? = try await database.write { connection in
            for try await outcome in try await connection.query(
                """
                UPDATE terminal_sign_in AS taken SET outcome = '', taken_at = \(stamp)
                FROM (SELECT handle_hash, outcome FROM terminal_sign_in WHERE handle_hash = \(handleHash) FOR UPDATE) AS before
                WHERE taken.handle_hash = before.handle_hash AND before.outcome IS NOT NULL AND taken.taken_at IS NULL
                RETURNING before.outcome
                """, logger: PostgresDatabase.quiet
            ).decode(String.self) {
                return outcome
            }
            return nil
        }
        return text.map(TerminalSignInOutcome.decoded)
    }
}
