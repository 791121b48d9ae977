import Foundation
import PostgresNIO
import ShopPorts
import StorageRows

/// The accounts' logins in PostgreSQL (`account_session`), shared by every host: a login ended on one host
/// is refused on every other at its next check.
public struct PostgresLogins: LoginRepository {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func start(_ record: LoginRecord, secretHash: String) async throws {
        let (created, used, expires) = (
            record.createdAt.timeIntervalSince1970, record.lastUsedAt.timeIntervalSince1970, record.expiresAt.timeIntervalSince1970
        )
        _ = try await database.write { connection in
            try await connection.query(
                """
                INSERT INTO account_session (id, secret_hash, account, kind, label, created_at, last_used_at, expires_at)
                VALUES (\(record.id), \(secretHash), \(record.account), \(record.kind.rawValue), \(record.label), \(created), \(used), \(expires))
                """, logger: PostgresDatabase.quiet)
        }
    }

    public func check(secretHash: String, at date: Date, lifetime: TimeInterval) async throws -> LoginCheck {
        let now = date.timeIntervalSince1970
        return try await database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT id, account, kind, label, created_at, expires_at, ended_at FROM account_session
                WHERE secret_hash = \(secretHash) FOR UPDATE
                """, logger: PostgresDatabase.quiet
            ).collect()
            guard let row = rows.first else { return .unknown }
            let (id, account, kind, label, created, expires, ended) = try row.decode((String, String, String, String, Double, Double, Double?).self)
            let check = LoginVerdict.of(
                id: id, account: account, kind: kind, label: label, createdAt: created, expiresAt: expires, endedAt: ended, now: now,
                lifetime: lifetime)
            if case .valid(let record) = check {
                try await connection.query(
                    "UPDATE account_session SET last_used_at = \(now), expires_at = \(record.expiresAt.timeIntervalSince1970) WHERE id = \(id)",
                    logger: PostgresDatabase.quiet)
            }
            return check
        }
    }

    public func end(secretHash: String, at date: Date) async throws {
        let stamp = date.timeIntervalSince1970
        _ = try await database.write { connection in
            try await connection.query(
                "UPDATE account_session SET ended_at = \(stamp) WHERE secret_hash = \(secretHash) AND ended_at IS NULL",
                logger: PostgresDatabase.quiet)
        }
    }

    public func end(id: String, account: String, at date: Date) async throws -> Bool {
        let stamp = date.timeIntervalSince1970
        return try await database.write { connection in
            try await !connection.query(
                "UPDATE account_session SET ended_at = \(stamp) WHERE id = \(id) AND account = \(account) AND ended_at IS NULL RETURNING id",
                logger: PostgresDatabase.quiet
            ).collect().isEmpty
        }
    }

    public func endAll(account: String, at date: Date) async throws -> Int {
        let stamp = date.timeIntervalSince1970
        return try await database.write { connection in
            try await connection.query(
                "UPDATE account_session SET ended_at = \(stamp) WHERE account = \(account) AND ended_at IS NULL RETURNING id",
                logger: PostgresDatabase.quiet
            ).collect().count
        }
    }

    public func logins(account: String, at date: Date) async throws -> [LoginRecord] {
        let now = date.timeIntervalSince1970
        return try await database.read { connection in
            var records: [LoginRecord] = []
            for try await (id, kind, label, created, used, expires) in try await connection.query(
                """
                SELECT id, kind, label, created_at, last_used_at, expires_at FROM account_session
                WHERE account = \(account) AND ended_at IS NULL AND expires_at > \(now) ORDER BY last_used_at DESC, id
                """, logger: PostgresDatabase.quiet
            ).decode((String, String, String, Double, Double, Double).self) {
                guard let kind = LoginKind(rawValue: kind) else { continue }
                records.append(
                    LoginRecord(
                        id: id, account: account, kind: kind, label: label, createdAt: Date(timeIntervalSince1970: created),
                        lastUsedAt: Date(timeIntervalSince1970: used), expiresAt: Date(timeIntervalSince1970: expires)))
            }
            return records
        }
    }

    public func liveAccounts(ids: [String], at date: Date) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        let now = date.timeIntervalSince1970
        return try await database.read { connection in
            var live: [String: String] = [:]
            for try await (id, account) in try await connection.query(
                "SELECT id, account FROM account_session WHERE id = ANY(\(ids)) AND ended_at IS NULL AND expires_at > \(now)",
                logger: PostgresDatabase.quiet
            ).decode((String, String).self) {
                live[id] = account
            }
            return live
        }
    }
}

/// The states of sign-ins with OpenID Connect providers in PostgreSQL (`oidc_state`): a callback reaching any host
/// takes its state once.
public struct PostgresOpenIDStates: OpenIDStateRepository {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func file(stateHash: String, provider: String, at date: Date) async throws {
        let (stamp, old) = (date.timeIntervalSince1970, date.timeIntervalSince1970 - 86_400)
        _ = try await database.write { connection in
            try await connection.query("DELETE FROM oidc_state WHERE created_at < \(old)", logger: PostgresDatabase.quiet)
            try await connection.query(
                "INSERT INTO oidc_state (state_hash, provider, created_at) VALUES (\(stateHash), \(provider), \(stamp))",
                logger: PostgresDatabase.quiet)
        }
    }

    public func take(stateHash: String, provider: String, at date: Date, lifetime: TimeInterval) async throws -> Bool {
        let (stamp, oldest) = (date.timeIntervalSince1970, date.timeIntervalSince1970 - lifetime)
        return try await database.write { connection in
            try await !connection.query(
                """
                UPDATE oidc_state SET used_at = \(stamp)
                WHERE state_hash = \(stateHash) AND provider = \(provider) AND used_at IS NULL AND created_at > \(oldest) RETURNING state_hash
                """, logger: PostgresDatabase.quiet
            ).collect().isEmpty
        }
    }
}

/// The merchant accounts in PostgreSQL (`account_admin`), the same for every host.
public struct PostgresAccountAdmins: AccountAdmins {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func add(_ account: String, at date: Date) async throws {
        let stamp = date.timeIntervalSince1970
        _ = try await database.write { connection in
            try await connection.query(
                "INSERT INTO account_admin (account, added_at) VALUES (\(account), \(stamp)) ON CONFLICT (account) DO NOTHING",
                logger: PostgresDatabase.quiet)
        }
    }

    public func remove(_ account: String) async throws -> Bool {
        try await database.write { connection in
            try await !connection.query("DELETE FROM account_admin WHERE account = \(account) RETURNING account", logger: PostgresDatabase.quiet)
                .collect().isEmpty
        }
    }

    public func isAdmin(_ account: String) async throws -> Bool {
        try await database.read { connection in
            try await !connection.query("SELECT 1 FROM account_admin WHERE account = \(account)", logger: PostgresDatabase.quiet).collect().isEmpty
        }
    }

    public func admins() async throws -> [(account: String, addedAt: Date)] {
        try await database.read { connection in
            var admins: [AdminRow] = []
            for try await (account, added) in try await connection.query(
                "SELECT account, added_at FROM account_admin ORDER BY added_at, account", logger: PostgresDatabase.quiet
            ).decode((String, Double).self) {
                admins.append(AdminRow(account: account, addedAt: Date(timeIntervalSince1970: added)))
            }
            return admins
        }.map { ($0.account, $0.addedAt) }
    }
}

struct AdminRow: Sendable {
    var account: String
    var addedAt: Date
}
