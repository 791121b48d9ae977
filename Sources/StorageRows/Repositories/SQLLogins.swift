import Foundation
import ShopPorts

/// The accounts' logins (`account_session`): hashes of their secrets only.
public struct SQLLogins: LoginRepository {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func start(_ record: LoginRecord, secretHash: String) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute(
                """
                INSERT INTO account_session (id, secret_hash, account, kind, label, created_at, last_used_at, expires_at)
                VALUES (\(record.id), \(secretHash), \(record.account), \(record.kind.rawValue), \(record.label), \(record.createdAt),
                    \(record.lastUsedAt), \(record.expiresAt))
                """)
        }
    }

    /// A valid login's use moves its expiry on; the row is locked as it is read, so two hosts' checks queue.
    public func check(secretHash: String, at date: Date, lifetime: TimeInterval) async throws -> LoginCheck {
        let now = date.timeIntervalSince1970
        return try await database.run(.write) { connection in
            guard
                let row = try connection.row(
                    """
                    SELECT id, account, kind, label, created_at, expires_at, ended_at FROM account_session WHERE secret_hash = \(secretHash)\
                    \(raw: connection.forUpdate)
                    """)
            else { return .unknown }
            let check = LoginVerdict.of(
                id: try row["id"], account: try row["account"], kind: try row["kind"], label: try row["label"], createdAt: try row["created_at"],
                expiresAt: try row["expires_at"], endedAt: try row["ended_at"], now: now, lifetime: lifetime)
            if case .valid(let record) = check {
                try connection.execute("UPDATE account_session SET last_used_at = \(now), expires_at = \(record.expiresAt) WHERE id = \(record.id)")
            }
            return check
        }
    }

    public func end(secretHash: String, at date: Date) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute("UPDATE account_session SET ended_at = \(date) WHERE secret_hash = \(secretHash) AND ended_at IS NULL")
        }
    }

    public func end(id: String, account: String, at date: Date) async throws -> Bool {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute(
                "UPDATE account_session SET ended_at = \(date) WHERE id = \(id) AND account = \(account) AND ended_at IS NULL") > 0
        }
    }

    public func endAll(account: String, at date: Date) async throws -> Int {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute("UPDATE account_session SET ended_at = \(date) WHERE account = \(account) AND ended_at IS NULL")
        }
    }

    public func logins(account: String, at date: Date) async throws -> [LoginRecord] {
        try await database.run(.read) { connection in
            try connection.rows(
                """
                SELECT id, account, kind, label, created_at, last_used_at, expires_at FROM account_session
                WHERE account = \(account) AND ended_at IS NULL AND expires_at > \(date) ORDER BY last_used_at DESC, id
                """
            ).compactMap { row in
                try LoginKind(rawValue: row["kind"]).map { kind in
                    LoginRecord(
                        id: try row["id"], account: try row["account"], kind: kind, label: try row["label"], createdAt: try row["created_at"],
                        lastUsedAt: try row["last_used_at"], expiresAt: try row["expires_at"])
                }
            }
        }
    }

    public func liveAccounts(ids: [String], at date: Date) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        return try await database.run(.read) { connection in
            var live: [String: String] = [:]
            // In slices, well under either database's limit on bound values, however many tabs are open.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let slice = ids[start..<min(start + 500, ids.count)]
                for row in try connection.rows(
                    "SELECT id, account FROM account_session WHERE id IN \(list: Array(slice)) AND ended_at IS NULL AND expires_at > \(date)")
                {
                    live[try row["id"]] = try row["account"]
                }
            }
            return live
        }
    }
}

/// The states of sign-ins with OpenID Connect providers (`oidc_state`): hashes, each taken once, by whichever host
/// the callback reaches.
public struct SQLOpenIDStates: OpenIDStateRepository {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func file(stateHash: String, provider: String, at date: Date) async throws {
        try await database.run(.write) { connection in
            // States older than a day are of no use to anyone.
            try connection.execute("DELETE FROM oidc_state WHERE created_at < \(date.timeIntervalSince1970 - 86_400)")
            try connection.execute("INSERT INTO oidc_state (state_hash, provider, created_at) VALUES (\(stateHash), \(provider), \(date))")
        }
    }

    public func take(stateHash: String, provider: String, at date: Date, lifetime: TimeInterval) async throws -> Bool {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute(
                """
                UPDATE oidc_state SET used_at = \(date)
                WHERE state_hash = \(stateHash) AND provider = \(provider) AND used_at IS NULL AND created_at > \(date.timeIntervalSince1970 - lifetime)
                """) == 1
        }
    }
}

/// The merchant accounts (`account_admin`).
public struct SQLAccountAdmins: AccountAdmins {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func add(_ account: String, at date: Date) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute("INSERT INTO account_admin (account, added_at) VALUES (\(account), \(date)) ON CONFLICT (account) DO NOTHING")
        }
    }

    public func remove(_ account: String) async throws -> Bool {
        try await database.run(.writeOneStatement) { connection in try connection.execute("DELETE FROM account_admin WHERE account = \(account)") > 0
        }
    }

    public func isAdmin(_ account: String) async throws -> Bool {
        try await database.run(.read) { connection in try connection.row("SELECT 1 FROM account_admin WHERE account = \(account)") != nil }
    }

    public func admins() async throws -> [(account: String, addedAt: Date)] {
        try await database.run(.read) { connection in
            try connection.rows("SELECT account, added_at FROM account_admin ORDER BY added_at, account").map {
                (account: try $0["account"], addedAt: try $0["added_at"])
            }
        }
    }
}
