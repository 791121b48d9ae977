import Foundation
import GRDB
import ShopPorts
import StorageRows

/// The accounts' logins in SQLite (`account_session`): hashes of their secrets only.
public struct SQLiteLogins: LoginRepository {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func start(_ record: LoginRecord, secretHash: String) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO account_session (id, secret_hash, account, kind, label, created_at, last_used_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.id, secretHash, record.account, record.kind.rawValue, record.label, record.createdAt.timeIntervalSince1970,
                    record.lastUsedAt.timeIntervalSince1970, record.expiresAt.timeIntervalSince1970,
                ])
        }
    }

    public func check(secretHash: String, at date: Date, lifetime: TimeInterval) async throws -> LoginCheck {
        let now = date.timeIntervalSince1970
        return try await database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM account_session WHERE secret_hash = ?", arguments: [secretHash]) else {
                return .unknown
            }
            let check = LoginVerdict.of(
                id: row["id"], account: row["account"], kind: row["kind"], label: row["label"], createdAt: row["created_at"],
                expiresAt: row["expires_at"], endedAt: row["ended_at"], now: now, lifetime: lifetime)
            if case .valid(let record) = check {
                try db.execute(
                    sql: "UPDATE account_session SET last_used_at = ?, expires_at = ? WHERE id = ?",
                    arguments: [now, record.expiresAt.timeIntervalSince1970, record.id])
            }
            return check
        }
    }

    public func end(secretHash: String, at date: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE account_session SET ended_at = ? WHERE secret_hash = ? AND ended_at IS NULL",
                arguments: [date.timeIntervalSince1970, secretHash])
        }
    }

    public func end(id: String, account: String, at date: Date) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE account_session SET ended_at = ? WHERE id = ? AND account = ? AND ended_at IS NULL",
                arguments: [date.timeIntervalSince1970, id, account])
            return db.changesCount > 0
        }
    }

    public func endAll(account: String, at date: Date) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE account_session SET ended_at = ? WHERE account = ? AND ended_at IS NULL",
                arguments: [date.timeIntervalSince1970, account])
            return db.changesCount
        }
    }

    public func logins(account: String, at date: Date) async throws -> [LoginRecord] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM account_session WHERE account = ? AND ended_at IS NULL AND expires_at > ? ORDER BY last_used_at DESC, id
                    """,
                arguments: [account, date.timeIntervalSince1970]
            ).compactMap { row in
                LoginKind(rawValue: row["kind"]).map { kind in
                    LoginRecord(
                        id: row["id"], account: row["account"], kind: kind, label: row["label"],
                        createdAt: Date(timeIntervalSince1970: row["created_at"]), lastUsedAt: Date(timeIntervalSince1970: row["last_used_at"]),
                        expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
                }
            }
        }
    }

    public func liveAccounts(ids: [String], at date: Date) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        return try await database.read { db in
            var live: [String: String] = [:]
            // In slices, well under SQLite's limit on bound values, however many tabs are open.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let slice = Array(ids[start..<min(start + 500, ids.count)])
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                for row in try Row.fetchAll(
                    db, sql: "SELECT id, account FROM account_session WHERE id IN (\(marks)) AND ended_at IS NULL AND expires_at > ?",
                    arguments: StatementArguments(slice.map { $0 as any DatabaseValueConvertible } + [date.timeIntervalSince1970]))
                {
                    live[row["id"]] = row["account"]
                }
            }
            return live
        }
    }
}

/// The states of sign-ins with OpenID Connect providers in SQLite (`oidc_state`): hashes, each taken once.
public struct SQLiteOpenIDStates: OpenIDStateRepository {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func file(stateHash: String, provider: String, at date: Date) async throws {
        try await database.write { db in
            // States older than a day are of no use to anyone.
            try db.execute(sql: "DELETE FROM oidc_state WHERE created_at < ?", arguments: [date.timeIntervalSince1970 - 86_400])
            try db.execute(
                sql: "INSERT INTO oidc_state (state_hash, provider, created_at) VALUES (?, ?, ?)",
                arguments: [stateHash, provider, date.timeIntervalSince1970])
        }
    }

    public func take(stateHash: String, provider: String, at date: Date, lifetime: TimeInterval) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE oidc_state SET used_at = ? WHERE state_hash = ? AND provider = ? AND used_at IS NULL AND created_at > ?
                    """,
                arguments: [date.timeIntervalSince1970, stateHash, provider, date.timeIntervalSince1970 - lifetime])
            return db.changesCount == 1
        }
    }
}

/// The merchant accounts in SQLite (`account_admin`).
public struct SQLiteAccountAdmins: AccountAdmins {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func add(_ account: String, at date: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT INTO account_admin (account, added_at) VALUES (?, ?) ON CONFLICT (account) DO NOTHING",
                arguments: [account, date.timeIntervalSince1970])
        }
    }

    public func remove(_ account: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM account_admin WHERE account = ?", arguments: [account])
            return db.changesCount > 0
        }
    }

    public func isAdmin(_ account: String) async throws -> Bool {
        try await database.read { db in try Int.fetchOne(db, sql: "SELECT 1 FROM account_admin WHERE account = ?", arguments: [account]) != nil }
    }

    public func admins() async throws -> [(account: String, addedAt: Date)] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT account, added_at FROM account_admin ORDER BY added_at, account").map {
                (account: $0["account"] as String, addedAt: Date(timeIntervalSince1970: $0["added_at"]))
            }
        }
    }
}
