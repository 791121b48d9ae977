import Foundation
import ShopPorts

/// Sign-ins a terminal started and a browser finishes (`terminal_sign_in`): hashes of the links' handles, shared by
/// every host.
public struct SQLTerminalSignIns: TerminalSignIns {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func file(handleHash: String, provider: String, at date: Date) async throws {
        try await database.run(.write) { connection in
            // Sign-ins older than a day are of no use to anyone.
            try connection.execute("DELETE FROM terminal_sign_in WHERE created_at < \(date.timeIntervalSince1970 - 86_400)")
            try connection.execute("INSERT INTO terminal_sign_in (handle_hash, provider, created_at) VALUES (\(handleHash), \(provider), \(date))")
        }
    }

    public func open(handleHash: String, stateHash: String, at date: Date, lifetime: TimeInterval) async throws -> String? {
        try await database.run(.writeOneStatement) { connection in
            try connection.value(
                """
                UPDATE terminal_sign_in SET state_hash = \(stateHash)
                WHERE handle_hash = \(handleHash) AND finished_at IS NULL AND created_at > \(date.timeIntervalSince1970 - lifetime) RETURNING provider
                """)
        }
    }

    public func handle(forState stateHash: String) async throws -> String? {
        try await database.run(.read) { connection in try connection.value("SELECT handle_hash FROM terminal_sign_in WHERE state_hash = \(stateHash)")
        }
    }

    public func finish(handleHash: String, outcome: TerminalSignInOutcome, at date: Date) async throws -> Bool {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute(
                """
                UPDATE terminal_sign_in SET outcome = \(outcome.encoded), finished_at = \(date)
                WHERE handle_hash = \(handleHash) AND finished_at IS NULL
                """) == 1
        }
    }

    /// Taken once, by one host: the row is locked as it is read, and the identity leaves the table with it.
    public func take(handleHash: String) async throws -> TerminalSignInOutcome? {
        let text: String? = try await database.run(.write) { connection in
            guard
                let text: String = try connection.value(
                    """
                    SELECT outcome FROM terminal_sign_in WHERE handle_hash = \(handleHash) AND outcome IS NOT NULL AND taken_at IS NULL\
                    \(raw: connection.forUpdate)
                    """)
            else { return nil }
            try connection.execute("UPDATE terminal_sign_in SET outcome = '', taken_at = \(Date()) WHERE handle_hash = \(handleHash)")
            return text
        }
        return text.map(TerminalSignInOutcome.decoded)
    }
}
