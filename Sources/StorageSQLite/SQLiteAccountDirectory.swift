import Foundation
import GRDB
import ShopPorts
import StorageRows

/// The accounts and their ways in, in SQLite (`account`, `account_way_in`).
public struct SQLiteAccountDirectory: AccountDirectory {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func account(for wayIn: WayIn, at date: Date) async throws -> CustomerAccount? {
        let stamp = date.timeIntervalSince1970
        return try await database.write { db in
            if let row = try Row.fetchOne(
                db, sql: "SELECT account, removed_at FROM account_way_in WHERE kind = ? AND way_key = ?", arguments: [wayIn.kind, wayIn.key])
            {
                guard (row["removed_at"] as Double?) == nil else { return nil }
                let id: String = row["account"]
                try db.execute(
                    sql: "UPDATE account_way_in SET last_used_at = ? WHERE kind = ? AND way_key = ?", arguments: [stamp, wayIn.kind, wayIn.key])
                return try Self.account(id, db)
            }
            // A first sign-in: the account takes the id this way in kept its data under before accounts.
            let id = wayIn.customerID
            try db.execute(sql: "INSERT INTO account (customer, created_at) VALUES (?, ?) ON CONFLICT (customer) DO NOTHING", arguments: [id, stamp])
            try db.execute(
                sql: "INSERT INTO account_way_in (kind, way_key, account, added_at, last_used_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [wayIn.kind, wayIn.key, id, stamp, stamp])
            return try Self.account(id, db)
        }
    }

    public func account(id: String) async throws -> CustomerAccount? {
        try await database.read { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM account WHERE customer = ?", arguments: [id]) != nil else { return nil }
            return try Self.account(id, db)
        }
    }

    public func account(verifiedEmail email: String) async throws -> CustomerAccount? {
        try await database.read { db in
            guard
                let id = try String.fetchOne(
                    db, sql: "SELECT customer FROM account WHERE lower(email) = lower(?) AND email_verified_at IS NOT NULL", arguments: [email])
            else { return nil }
            return try Self.account(id, db)
        }
    }

    public func link(_ wayIn: WayIn, to accountID: String, at date: Date) async throws(AccountChangeError) {
        try await change { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM account WHERE customer = ?", arguments: [accountID]) != nil else {
                return .noSuchAccount(accountID)
            }
            if let owner = try String.fetchOne(
                db, sql: "SELECT account FROM account_way_in WHERE kind = ? AND way_key = ? AND removed_at IS NULL",
                arguments: [wayIn.kind, wayIn.key])
            {
                return owner == accountID ? nil : .reachesAnotherAccount(owner)
            }
            // New, or removed from an account before: it reaches this one now.
            try db.execute(
                sql: """
                    INSERT INTO account_way_in (kind, way_key, account, added_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (kind, way_key) DO UPDATE SET account = excluded.account, added_at = excluded.added_at, removed_at = NULL,
                        last_used_at = NULL
                    """,
                arguments: [wayIn.kind, wayIn.key, accountID, date.timeIntervalSince1970])
            return nil
        }
    }

    public func move(_ wayIn: WayIn, to accountID: String, at date: Date) async throws(AccountChangeError) {
        try await change { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM account WHERE customer = ?", arguments: [accountID]) != nil else {
                return .noSuchAccount(accountID)
            }
            let owner = try String.fetchOne(
                db, sql: "SELECT account FROM account_way_in WHERE kind = ? AND way_key = ? AND removed_at IS NULL",
                arguments: [wayIn.kind, wayIn.key])
            guard let owner, owner != accountID else { return owner == nil ? .notLinked : nil }
            let others =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM account_way_in WHERE account = ? AND removed_at IS NULL", arguments: [owner]) ?? 0
            let verified =
                try Int.fetchOne(
                    db, sql: "SELECT 1 FROM account WHERE customer = ? AND email_verified_at IS NOT NULL", arguments: [owner]) != nil
            guard others == 1, !verified else { return .reachesAnotherAccount(owner) }
            try db.execute(
                sql: "UPDATE account_way_in SET account = ?, added_at = ? WHERE kind = ? AND way_key = ?",
                arguments: [accountID, date.timeIntervalSince1970, wayIn.kind, wayIn.key])
            return nil
        }
    }

    public func openAccount(verifiedEmail email: String, newID: String, at date: Date) async throws(AccountChangeError) -> CustomerAccount {
        let opened: CustomerAccount
        do {
            opened = try await database.write { db in
                if let id = try String.fetchOne(
                    db, sql: "SELECT customer FROM account WHERE lower(email) = lower(?) AND email_verified_at IS NOT NULL", arguments: [email])
                {
                    return try Self.account(id, db)
                }
                try db.execute(
                    sql: "INSERT INTO account (customer, email, email_verified_at, created_at) VALUES (?, ?, ?, ?)",
                    arguments: [newID, email, date.timeIntervalSince1970, date.timeIntervalSince1970])
                return try Self.account(newID, db)
            }
        } catch {
            throw .storage(SQLiteDatabaseError.from(error, path: database.path).description)
        }
        return opened
    }

    public func remove(_ wayIn: WayIn, from accountID: String, at date: Date) async throws(AccountChangeError) {
        try await change { db in
            let ways = try String.fetchAll(
                db, sql: "SELECT kind || ' ' || way_key FROM account_way_in WHERE account = ? AND removed_at IS NULL", arguments: [accountID])
            guard ways.contains(wayIn.kind + " " + wayIn.key) else { return .notLinked }
            guard ways.count > 1 else { return .lastWayIn }
            try db.execute(
                sql: "UPDATE account_way_in SET removed_at = ? WHERE kind = ? AND way_key = ? AND account = ?",
                arguments: [date.timeIntervalSince1970, wayIn.kind, wayIn.key, accountID])
            return nil
        }
    }

    public func verify(email: String, for accountID: String, at date: Date) async throws(AccountChangeError) {
        try await change { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM account WHERE customer = ?", arguments: [accountID]) != nil else {
                return .noSuchAccount(accountID)
            }
            let holder = try String.fetchOne(
                db, sql: "SELECT customer FROM account WHERE lower(email) = lower(?) AND email_verified_at IS NOT NULL AND customer <> ?",
                arguments: [email, accountID])
            guard holder == nil else { return .emailTaken }
            try db.execute(
                sql: "UPDATE account SET email = ?, email_verified_at = ? WHERE customer = ?",
                arguments: [email, date.timeIntervalSince1970, accountID])
            return nil
        }
    }

    public func accounts(offset: Int, limit: Int) async throws -> [CustomerAccount] {
        try await database.read { db in
            try String.fetchAll(
                db, sql: "SELECT customer FROM account ORDER BY customer LIMIT ? OFFSET ?", arguments: [max(0, limit), max(0, offset)]
            ).map { try Self.account($0, db) }
        }
    }

    /// Runs `body` in one write; a refusal it returns is thrown after the transaction, which changed nothing.
    private func change(_ body: @escaping @Sendable (Database) throws -> AccountChangeError?) async throws(AccountChangeError) {
        let refusal: AccountChangeError?
        do {
            refusal = try await database.write(body)
        } catch {
            throw .storage(SQLiteDatabaseError.from(error, path: database.path).description)
        }
        if let refusal { throw refusal }
    }

    static func account(_ id: String, _ db: Database) throws -> CustomerAccount {
        let row = try Row.fetchOne(db, sql: "SELECT * FROM account WHERE customer = ?", arguments: [id])
        let ways = try Row.fetchAll(
            db, sql: "SELECT * FROM account_way_in WHERE account = ? AND removed_at IS NULL ORDER BY added_at, kind, way_key", arguments: [id]
        ).compactMap { row -> WayInRecord? in
            guard let wayIn = WayIn(kind: row["kind"], key: row["way_key"]) else { return nil }
            return WayInRecord(
                wayIn: wayIn, addedAt: Date(timeIntervalSince1970: row["added_at"]),
                lastUsedAt: (row["last_used_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
        }
        return CustomerAccount(
            id: id, name: row?["name"], email: row?["email"],
            emailVerifiedAt: (row?["email_verified_at"] as Double?).map(Date.init(timeIntervalSince1970:)), waysIn: ways)
    }
}

extension SQLiteAccountDirectory {
    public func merge(_ from: String, into: String) async throws(AccountChangeError) -> [(what: String, count: Int)] {
        let moved: Result<[(what: String, count: Int)], AccountChangeError>
        do {
            moved = try await database.write { db in
                for id in [from, into] where try Int.fetchOne(db, sql: "SELECT 1 FROM account WHERE customer = ?", arguments: [id]) == nil {
                    return .failure(.noSuchAccount(id))
                }
                var counts: [(what: String, count: Int)] = []
                for (what, sql) in AccountMerge.statements {
                    let bound = AccountMerge.bound(sql, from: "?1", into: "?2")
                    try db.execute(sql: bound, arguments: StatementArguments(bound.contains("?2") ? [from, into] : [from]))
                    if !what.isEmpty { counts.append((what, db.changesCount)) }
                }
                return .success(counts)
            }
        } catch {
            throw .storage(SQLiteDatabaseError.from(error, path: database.path).description)
        }
        return try moved.get()
    }
}
