import Foundation
import ShopPorts

/// Sign-ins a terminal started and a browser finishes, in SQLite (`terminal_sign_in`): hashes of the links' handles.
public struct SQLiteTerminalSignIns: TerminalSignIns {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func file(handleHash: String, provider: String, at date: Date) async throws {
        try await database.write { db in
            // Sign-ins older than a day are of no use to anyone.
            try db.execute(sql: "DELETE FROM terminal_sign_in WHERE created_at < ?", arguments: [date.timeIntervalSince1970 - 86_400])
            try db.execute(
                sql: "INSERT INTO terminal_sign_in (handle_hash, provider, created_at) VALUES (?, ?, ?)",
                arguments: [handleHash, provider, date.timeIntervalSince1970])
        }
    }

    public func open(handleHash: String, stateHash: String, at date: Date, lifetime: TimeInterval) async throws -> String? {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE terminal_sign_in SET state_hash = ? WHERE handle_hash = ? AND finished_at IS NULL AND created_at > ?",
                arguments: [stateHash, handleHash, date.timeIntervalSince1970 - lifetime])
            guard db.changesCount == 1 else { return nil }
            return try String.fetchOne(db, sql: "SELECT provider FROM terminal_sign_in WHERE handle_hash = ?", arguments: [handleHash])
        }
    }

    public func handle(forState stateHash: String) async throws -> String? {
        try await database.read { db in
            try String.fetchOne(db, sql: "SELECT handle_hash FROM terminal_sign_in WHERE state_hash = ?", arguments: [stateHash])
        }
    }

    public func finish(handleHash: String, outcome: TerminalSignInOutcome, at date: Date) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE terminal_sign_in SET outcome = ?, finished_at = ? WHERE handle_hash = ? AND finished_at IS NULL",
                arguments: [outcome.encoded, date.timeIntervalSince1970, handleHash])
            return db.changesCount == 1
        }
    }

    public func take(handleHash: String) async throws -> TerminalSignInOutcome? {
        try await database.write { db in
            guard
                let text = try String.fetchOne(
                    db, sql: "SELECT outcome FROM terminal_sign_in WHERE handle_hash = ? AND outcome IS NOT NULL AND taken_at IS NULL",
                    arguments: [handleHash])
            else { return nil }
            // Taken once: the identity leaves the table with it.
            try db.execute(
                sql: "UPDATE terminal_sign_in SET outcome = '', taken_at = ? WHERE handle_hash = ?",
                arguments: [Date().timeIntervalSince1970, handleHash])
            return TerminalSignInOutcome.decoded(text)
        }
    }
}
