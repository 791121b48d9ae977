import Foundation
import ShopModels
import ShopPorts

/// The accounts and their ways in (`account`, `account_way_in`), shared by every host: a way in linked or removed on
/// one host reaches or stops reaching its account on every other at its next look. On PostgreSQL the rows a change
/// decides on are locked first; SQLite's write transaction runs alone.
public struct SQLAccountDirectory: AccountDirectory {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func account(for wayIn: WayIn, at date: Date) async throws -> CustomerAccount? {
        let (kind, key, id) = (wayIn.kind, wayIn.key, wayIn.customerID)
        return try await database.run(.write) { connection in
            if let linked = try connection.row(
                """
                UPDATE account_way_in SET last_used_at = CASE WHEN removed_at IS NULL THEN \(date) ELSE last_used_at END
                WHERE kind = \(kind) AND way_key = \(key) RETURNING account, removed_at
                """)
            {
                return try linked["removed_at"] as Double? == nil ? try Self.account(try linked["account"], on: connection) : nil
            }
            // A first sign-in: the account takes the id this way in kept its data under before accounts. Two hosts
            // seeing the same new key at once both land on the one row.
            try connection.execute("INSERT INTO account (customer, created_at) VALUES (\(id), \(date)) ON CONFLICT (customer) DO NOTHING")
            let owner: String? = try connection.value(
                """
                INSERT INTO account_way_in (kind, way_key, account, added_at, last_used_at) VALUES (\(kind), \(key), \(id), \(date), \(date))
                ON CONFLICT (kind, way_key) DO UPDATE SET last_used_at = excluded.last_used_at
                RETURNING account
                """)
            return try Self.account(owner ?? id, on: connection)
        }
    }

    public func account(id: String) async throws -> CustomerAccount? {
        try await database.run(.read) { connection in try Self.exists(id, on: connection) ? try Self.account(id, on: connection) : nil }
    }

    public func account(verifiedEmail email: String) async throws -> CustomerAccount? {
        try await database.run(.read) { connection in
            try Self.holder(of: email, on: connection).map { try Self.account($0, on: connection) }
        }
    }

    public func link(_ wayIn: WayIn, to accountID: String, at date: Date) async throws(AccountChangeError) {
        try await change { connection in
            guard try Self.exists(accountID, on: connection) else { return .noSuchAccount(accountID) }
            // New, or removed from an account before: it reaches this one now; one another account holds is refused.
            let owner: String? = try connection.value(
                """
                INSERT INTO account_way_in (kind, way_key, account, added_at) VALUES (\(wayIn.kind), \(wayIn.key), \(accountID), \(date))
                ON CONFLICT (kind, way_key) DO UPDATE SET
                    account = CASE WHEN account_way_in.removed_at IS NULL THEN account_way_in.account ELSE excluded.account END,
                    added_at = CASE WHEN account_way_in.removed_at IS NULL THEN account_way_in.added_at ELSE excluded.added_at END,
                    last_used_at = CASE WHEN account_way_in.removed_at IS NULL THEN account_way_in.last_used_at ELSE NULL END,
                    removed_at = NULL
                RETURNING account
                """)
            return owner == accountID ? nil : .reachesAnotherAccount(owner ?? "")
        }
    }

    public func move(_ wayIn: WayIn, to accountID: String, at date: Date) async throws(AccountChangeError) {
        try await change { connection in
            guard try Self.exists(accountID, on: connection) else { return .noSuchAccount(accountID) }
            let owner: String? = try connection.value(
                """
                SELECT account FROM account_way_in WHERE kind = \(wayIn.kind) AND way_key = \(wayIn.key) AND removed_at IS NULL\
                \(raw: connection.forUpdate)
                """)
            guard let owner, owner != accountID else { return owner == nil ? .notLinked : nil }
            // The account it leaves, locked with its ways in: a way in linked to it meanwhile makes it a real account.
            let others = try connection.rows(
                "SELECT 1 FROM account_way_in WHERE account = \(owner) AND removed_at IS NULL\(raw: connection.forUpdate)")
            let verified = try connection.row(
                "SELECT 1 FROM account WHERE customer = \(owner) AND email_verified_at IS NOT NULL\(raw: connection.forUpdate)")
            guard others.count == 1, verified == nil else { return .reachesAnotherAccount(owner) }
            try connection.execute(
                "UPDATE account_way_in SET account = \(accountID), added_at = \(date) WHERE kind = \(wayIn.kind) AND way_key = \(wayIn.key)")
            return nil
        }
    }

    public func openAccount(verifiedEmail email: String, newID: String, at date: Date) async throws(AccountChangeError) -> CustomerAccount {
        try await database.run(.write, failing: AccountChangeError.storage) { connection in
            // One email, one account, even when two hosts open it at once.
            if connection.dialect == .postgres {
                try connection.execute("SELECT pg_advisory_xact_lock(hashtext(\("account-email:" + email.lowercased())))")
            }
            if let id = try Self.holder(of: email, on: connection) { return try Self.account(id, on: connection) }
            try connection.execute(
                "INSERT INTO account (customer, email, email_verified_at, created_at) VALUES (\(newID), \(email), \(date), \(date))")
            return try Self.account(newID, on: connection)
        }
    }

    public func remove(_ wayIn: WayIn, from accountID: String, at date: Date) async throws(AccountChangeError) {
        try await change { connection in
            // The account's ways in, locked: two removals at once cannot leave it with none.
            let ways = try connection.rows(
                "SELECT kind, way_key FROM account_way_in WHERE account = \(accountID) AND removed_at IS NULL\(raw: connection.forUpdate)"
            ).map { try $0["kind"] as String + " " + $0["way_key"] }
            guard ways.contains(wayIn.kind + " " + wayIn.key) else { return .notLinked }
            guard ways.count > 1 else { return .lastWayIn }
            try connection.execute(
                "UPDATE account_way_in SET removed_at = \(date) WHERE kind = \(wayIn.kind) AND way_key = \(wayIn.key) AND account = \(accountID)")
            return nil
        }
    }

    public func verify(email: String, for accountID: String, at date: Date) async throws(AccountChangeError) {
        try await change { connection in
            guard try Self.exists(accountID, on: connection) else { return .noSuchAccount(accountID) }
            let holder = try connection.row(
                """
                SELECT customer FROM account WHERE lower(email) = lower(\(email)) AND email_verified_at IS NOT NULL AND customer <> \(accountID)
                """)
            guard holder == nil else { return .emailTaken }
            try connection.execute("UPDATE account SET email = \(email), email_verified_at = \(date) WHERE customer = \(accountID)")
            return nil
        }
    }

    public func accounts(offset: Int, limit: Int) async throws -> [CustomerAccount] {
        try await database.run(.read) { connection in
            try connection.values("SELECT customer FROM account ORDER BY customer LIMIT \(max(0, limit)) OFFSET \(max(0, offset))", as: String.self)
                .map { try Self.account($0, on: connection) }
        }
    }

    /// Moves everything `from` held to `into` and deletes `from`, in one transaction, both accounts locked first on
    /// PostgreSQL: a way in linked to either meanwhile waits for the merge.
    public func merge(_ from: String, into: String) async throws(AccountChangeError) -> [(what: String, count: Int)] {
        try await database.run(.write, failing: AccountChangeError.storage) { connection in
            for id in [from, into] where try !Self.exists(id, on: connection) { throw AccountChangeError.noSuchAccount(id) }
            _ = try connection.rows(
                "SELECT customer FROM account WHERE customer IN \(list: [from, into]) ORDER BY customer\(raw: connection.forUpdate)")
            var counts: [MergeCount] = []
            for (what, sql) in AccountMerge.statements {
                let text = AccountMerge.bound(sql, from: "$1", into: "$2")
                let moved = try connection.execute(
                    SQLStatement(text: text, values: text.contains("$2") ? [.text(from), .text(into)] : [.text(from)]))
                if !what.isEmpty { counts.append(MergeCount(what: what, count: moved)) }
            }
            return counts
        }.map { ($0.what, $0.count) }
    }

    /// Runs `body` in one transaction; a refusal it returns is thrown, and the transaction rolled back.
    private func change(_ body: @escaping @Sendable (any SQLConnection) throws -> AccountChangeError?) async throws(AccountChangeError) {
        try await database.run(.write, failing: AccountChangeError.storage) { connection in
            if let refusal = try body(connection) { throw refusal }
        }
    }

    private static func exists(_ id: String, on connection: any SQLConnection) throws -> Bool {
        try connection.row("SELECT 1 FROM account WHERE customer = \(id)") != nil
    }

    private static func holder(of email: String, on connection: any SQLConnection) throws -> String? {
        try connection.value("SELECT customer FROM account WHERE lower(email) = lower(\(email)) AND email_verified_at IS NOT NULL")
    }

    static func account(_ id: String, on connection: any SQLConnection) throws -> CustomerAccount {
        let row = try connection.row("SELECT name, email, email_verified_at FROM account WHERE customer = \(id)")
        let ways = try connection.rows(
            """
            SELECT kind, way_key, added_at, last_used_at FROM account_way_in WHERE account = \(id) AND removed_at IS NULL
            ORDER BY added_at, kind, way_key
            """
        ).compactMap { row -> WayInRecord? in
            guard let wayIn = WayIn(kind: try row["kind"], key: try row["way_key"]) else { return nil }
            return WayInRecord(wayIn: wayIn, addedAt: try row["added_at"], lastUsedAt: try row["last_used_at"])
        }
        return CustomerAccount(id: id, name: try row?["name"], email: try row?["email"], emailVerifiedAt: try row?["email_verified_at"], waysIn: ways)
    }
}

/// How many of one kind of thing a merge moved.
struct MergeCount: Sendable {
    var what: String
    var count: Int
}
