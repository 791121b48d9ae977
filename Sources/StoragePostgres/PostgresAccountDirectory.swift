import Foundation
import PostgresNIO
import ShopPorts
import StorageRows

/// The accounts and their ways in, in PostgreSQL (`account`, `account_way_in`), shared by every host: a way in linked
/// or removed on one host reaches or stops reaching its account on every other at its next look.
public struct PostgresAccountDirectory: AccountDirectory {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func account(for wayIn: WayIn, at date: Date) async throws -> CustomerAccount? {
        let (kind, key, stamp, id) = (wayIn.kind, wayIn.key, date.timeIntervalSince1970, wayIn.customerID)
        return try await database.transaction { connection in
            let linked = try await connection.query(
                """
                UPDATE account_way_in SET last_used_at = CASE WHEN removed_at IS NULL THEN \(stamp) ELSE last_used_at END
                WHERE kind = \(kind) AND way_key = \(key) RETURNING account, removed_at
                """, logger: PostgresDatabase.quiet
            ).collect().first?.decode((String, Double?).self)
            if let (owner, removed) = linked {
                return removed == nil ? try await Self.account(owner, on: connection) : nil
            }
            // A first sign-in: the account takes the id this way in kept its data under before accounts. Two hosts
            // seeing the same new key at once both land on the one row.
            try await connection.query(
                "INSERT INTO account (customer, created_at) VALUES (\(id), \(stamp)) ON CONFLICT (customer) DO NOTHING",
                logger: PostgresDatabase.quiet
            )
            let owner = try await connection.query(
                """
                INSERT INTO account_way_in (kind, way_key, account, added_at, last_used_at) VALUES (\(kind), \(key), \(id), \(stamp), \(stamp))
                ON CONFLICT (kind, way_key) DO UPDATE SET last_used_at = excluded.last_used_at
                RETURNING account
                """, logger: PostgresDatabase.quiet
            ).collect().first?.decode(String.self)
            return try await Self.account(owner ?? id, on: connection)
        }
    }

    public func account(id: String) async throws -> CustomerAccount? {
        try await database.read { connection in
            let exists = try await connection.query("SELECT 1 FROM account WHERE customer = \(id)", logger: PostgresDatabase.quiet).collect()
            return exists.isEmpty ? nil : try await Self.account(id, on: connection)
        }
    }

    public func account(verifiedEmail email: String) async throws -> CustomerAccount? {
        try await database.read { connection in
            let id = try await connection.query(
                "SELECT customer FROM account WHERE lower(email) = lower(\(email)) AND email_verified_at IS NOT NULL", logger: PostgresDatabase.quiet
            ).collect().first?.decode(String.self)
            return try await id.asyncMap { try await Self.account($0, on: connection) }
        }
    }

    public func link(_ wayIn: WayIn, to accountID: String, at date: Date) async throws(AccountChangeError) {
        let (kind, key, stamp) = (wayIn.kind, wayIn.key, date.timeIntervalSince1970)
        try await change { connection in
            guard try await Self.exists(accountID, on: connection) else { return .noSuchAccount(accountID) }
            // New, or removed from an account before: it reaches this one now; one another account holds is refused.
            let owner = try await connection.query(
                """
                INSERT INTO account_way_in (kind, way_key, account, added_at) VALUES (\(kind), \(key), \(accountID), \(stamp))
                ON CONFLICT (kind, way_key) DO UPDATE SET
                    account = CASE WHEN account_way_in.removed_at IS NULL THEN account_way_in.account ELSE excluded.account END,
                    added_at = CASE WHEN account_way_in.removed_at IS NULL THEN account_way_in.added_at ELSE excluded.added_at END,
                    removed_at = NULL
                RETURNING account
                """, logger: PostgresDatabase.quiet
            ).collect().first?.decode(String.self)
            return owner == accountID ? nil : .reachesAnotherAccount(owner ?? "")
        }
    }

    public func move(_ wayIn: WayIn, to accountID: String, at date: Date) async throws(AccountChangeError) {
        let (kind, key, stamp) = (wayIn.kind, wayIn.key, date.timeIntervalSince1970)
        try await change { connection in
            guard try await Self.exists(accountID, on: connection) else { return .noSuchAccount(accountID) }
            let owner = try await connection.query(
                "SELECT account FROM account_way_in WHERE kind = \(kind) AND way_key = \(key) AND removed_at IS NULL FOR UPDATE",
                logger: PostgresDatabase.quiet
            ).collect().first?.decode(String.self)
            guard let owner, owner != accountID else { return owner == nil ? .notLinked : nil }
            // The account it leaves, locked with its ways in: a way in linked to it meanwhile makes it a real account.
            let others = try await connection.query(
                "SELECT 1 FROM account_way_in WHERE account = \(owner) AND removed_at IS NULL FOR UPDATE", logger: PostgresDatabase.quiet
            ).collect().count
            let verified = try await !connection.query(
                "SELECT 1 FROM account WHERE customer = \(owner) AND email_verified_at IS NOT NULL FOR UPDATE", logger: PostgresDatabase.quiet
            ).collect().isEmpty
            guard others == 1, !verified else { return .reachesAnotherAccount(owner) }
            try await connection.query(
                "UPDATE account_way_in SET account = \(accountID), added_at = \(stamp) WHERE kind = \(kind) AND way_key = \(key)",
                logger: PostgresDatabase.quiet)
            return nil
        }
    }

    public func openAccount(verifiedEmail email: String, newID: String, at date: Date) async throws(AccountChangeError) -> CustomerAccount {
        let stamp = date.timeIntervalSince1970
        do {
            return try await database.transaction { connection in
                // One email, one account, even when two hosts open it at once.
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtext(\("account-email:" + email.lowercased())))", logger: PostgresDatabase.quiet)
                if let id = try await connection.query(
                    "SELECT customer FROM account WHERE lower(email) = lower(\(email)) AND email_verified_at IS NOT NULL",
                    logger: PostgresDatabase.quiet
                ).collect().first?.decode(String.self) {
                    return try await Self.account(id, on: connection)
                }
                try await connection.query(
                    "INSERT INTO account (customer, email, email_verified_at, created_at) VALUES (\(newID), \(email), \(stamp), \(stamp))",
                    logger: PostgresDatabase.quiet)
                return try await Self.account(newID, on: connection)
            }
        } catch {
            throw .storage("\(error)")
        }
    }

    public func remove(_ wayIn: WayIn, from accountID: String, at date: Date) async throws(AccountChangeError) {
        let (kind, key, stamp) = (wayIn.kind, wayIn.key, date.timeIntervalSince1970)
        try await change { connection in
            // The account's ways in, locked: two removals at once cannot leave it with none.
            var ways: [String] = []
            for try await (wayKind, wayKey) in try await connection.query(
                "SELECT kind, way_key FROM account_way_in WHERE account = \(accountID) AND removed_at IS NULL FOR UPDATE",
                logger: PostgresDatabase.quiet
            ).decode((String, String).self) {
                ways.append(wayKind + " " + wayKey)
            }
            guard ways.contains(kind + " " + key) else { return .notLinked }
            guard ways.count > 1 else { return .lastWayIn }
            try await connection.query(
                "UPDATE account_way_in SET removed_at = \(stamp) WHERE kind = \(kind) AND way_key = \(key) AND account = \(accountID)",
                logger: PostgresDatabase.quiet)
            return nil
        }
    }

    public func verify(email: String, for accountID: String, at date: Date) async throws(AccountChangeError) {
        let stamp = date.timeIntervalSince1970
        try await change { connection in
            guard try await Self.exists(accountID, on: connection) else { return .noSuchAccount(accountID) }
            let holders = try await connection.query(
                """
                SELECT customer FROM account WHERE lower(email) = lower(\(email)) AND email_verified_at IS NOT NULL AND customer <> \(accountID)
                """, logger: PostgresDatabase.quiet
            ).collect()
            guard holders.isEmpty else { return .emailTaken }
            try await connection.query(
                "UPDATE account SET email = \(email), email_verified_at = \(stamp) WHERE customer = \(accountID)", logger: PostgresDatabase.quiet)
            return nil
        }
    }

    public func accounts(offset: Int, limit: Int) async throws -> [CustomerAccount] {
        try await database.read { connection in
            var ids: [String] = []
            for try await id in try await connection.query(
                "SELECT customer FROM account ORDER BY customer LIMIT \(max(0, limit)) OFFSET \(max(0, offset))", logger: PostgresDatabase.quiet
            ).decode(String.self) {
                ids.append(id)
            }
            var accounts: [CustomerAccount] = []
            for id in ids { accounts.append(try await Self.account(id, on: connection)) }
            return accounts
        }
    }

    /// Runs `body` in one transaction; a refusal it returns is thrown after it, and the transaction changed nothing.
    private func change(_ body: @escaping @Sendable (PostgresConnection) async throws -> AccountChangeError?) async throws(AccountChangeError) {
        let refusal: AccountChangeError?
        do {
            refusal = try await database.transaction(body)
        } catch {
            throw .storage("\(error)")
        }
        if let refusal { throw refusal }
    }

    static func exists(_ id: String, on connection: PostgresConnection) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM account WHERE customer = \(id)", logger: PostgresDatabase.quiet).collect().isEmpty
    }

    static func account(_ id: String, on connection: PostgresConnection) async throws -> CustomerAccount {
        var account = CustomerAccount(id: id, name: nil, email: nil, emailVerifiedAt: nil, waysIn: [])
        for try await (name, email, verified) in try await connection.query(
            "SELECT name, email, email_verified_at FROM account WHERE customer = \(id)", logger: PostgresDatabase.quiet
        ).decode((String?, String?, Double?).self) {
            (account.name, account.email, account.emailVerifiedAt) = (name, email, verified.map(Date.init(timeIntervalSince1970:)))
        }
        for try await (kind, key, added, used) in try await connection.query(
            """
            SELECT kind, way_key, added_at, last_used_at FROM account_way_in WHERE account = \(id) AND removed_at IS NULL
            ORDER BY added_at, kind, way_key
            """,
            logger: PostgresDatabase.quiet
        ).decode((String, String, Double, Double?).self) {
            guard let wayIn = WayIn(kind: kind, key: key) else { continue }
            account.waysIn.append(
                WayInRecord(wayIn: wayIn, addedAt: Date(timeIntervalSince1970: added), lastUsedAt: used.map(Date.init(timeIntervalSince1970:))))
        }
        return account
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

extension PostgresAccountDirectory {
    public func merge(_ from: String, into: String) async throws(AccountChangeError) -> [(what: String, count: Int)] {
        let moved: Result<[MergeCount], AccountChangeError>
        do {
            moved = try await database.transaction { connection in
                for id in [from, into] where try await !Self.exists(id, on: connection) { return .failure(.noSuchAccount(id)) }
                // Both accounts locked first: a way in linked to either meanwhile waits for the merge.
                try await connection.query(
                    "SELECT customer FROM account WHERE customer IN (\(from), \(into)) ORDER BY customer FOR UPDATE", logger: PostgresDatabase.quiet)
                var counts: [MergeCount] = []
                for (what, sql) in AccountMerge.statements {
                    var binds = PostgresBindings()
                    binds.append(from)
                    binds.append(into)
                    let text = AccountMerge.bound(sql, from: "$1", into: "$2") + (what.isEmpty ? "" : " RETURNING 1")
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: text, binds: binds), logger: PostgresDatabase.quiet).collect()
                    if !what.isEmpty { counts.append(MergeCount(what: what, count: rows.count)) }
                }
                return .success(counts)
            }
        } catch {
            throw .storage("\(error)")
        }
        return try moved.get().map { ($0.what, $0.count) }
    }
}

/// How many of one kind of thing a merge moved.
struct MergeCount: Sendable {
    var what: String
    var count: Int
}
