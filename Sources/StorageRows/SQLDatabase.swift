import Foundation

/// A database the shop's repositories run their SQL on, SQLite or PostgreSQL. A body runs on a connection of its own
/// thread, off the caller's, and its SQL is the same on both but where `dialect` says otherwise.
///
/// Order of calls: a repository calls `run` once for each thing it does; the body runs its statements on
/// the connection it is given; the database commits when the body returns, and rolls back when it throws.
public protocol SQLDatabase: Sendable {
    /// Runs `body` as `access` says: reading, or writing in one transaction.
    @discardableResult func run<T: Sendable>(_ access: SQLAccess, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
}

extension SQLDatabase {
    /// Runs `body` for a port whose errors are `Failure`: one the body throws passes through; any other, the database's
    /// own included, becomes one through `wrap`, given its description.
    @discardableResult public func run<T: Sendable, Failure: Error>(
        _ access: SQLAccess, failing wrap: (String) -> Failure, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws(Failure) -> T {
        do {
            return try await run(access, body)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw wrap("\(error)")
        }
    }
}

/// How a body reaches the database.
public enum SQLAccess: Sendable {
    /// Reads, nothing written: on SQLite one snapshot; on PostgreSQL each statement sees what is committed as it runs.
    case read
    /// A `read` of what this process may just have written, one statement's worth: on SQLite on the writer connection,
    /// whose page cache survives this process's commits (it waits for a write in progress); on PostgreSQL a `read`.
    case readFresh
    /// A `read` of several statements that must agree (a wallet's cards and addresses): one snapshot on both databases;
    /// on PostgreSQL a REPEATABLE READ, READ ONLY transaction, where `read` lets each statement see what is committed
    /// as it runs.
    case readConsistent
    /// One transaction, synced to disk at its commit: orders, stock, charges.
    case write
    /// A `write` that may take minutes (a catalog's tables rebuilt): PostgreSQL's deadline for it is ten minutes.
    case writeLong
    /// A write that one statement makes atomic: one transaction on SQLite; on PostgreSQL each statement commits on its
    /// own, without BEGIN and COMMIT, two round trips fewer. A body whose writes must stand or fall together must not
    /// use this; one that writes once and then reads may.
    case writeOneStatement
    /// A write a crash of the machine may lose and the shopper would not mind (a cart), done the cheapest way: SQLite
    /// commits its transaction without syncing it; PostgreSQL runs each statement on its own, without BEGIN and
    /// COMMIT, so there the body is one statement.
    case writeUnsynced
}

/// One connection, inside a read or a write. Its calls block its thread: the database runs each body on a thread of
/// its own, never on Swift's shared pool.
public protocol SQLConnection {
    var dialect: Schema.Dialect { get }
    /// Runs `statement`; returns how many rows it changed.
    @discardableResult func execute(_ statement: SQLStatement) throws -> Int
    /// The rows `statement` answers.
    func rows(_ statement: SQLStatement) throws -> [SQLRow]
}

extension SQLConnection {
    /// The first row `statement` answers, if any.
    public func row(_ statement: SQLStatement) throws -> SQLRow? { try rows(statement).first }

    /// The first cell of the first row, if there is a row: a document, a count.
    public func value<T: SQLReadable>(_ statement: SQLStatement, as type: T.Type = T.self) throws -> T? {
        try rows(statement).first.map { try $0.first(as: T.self) }
    }

    /// The first cell of each row.
    public func values<T: SQLReadable>(_ statement: SQLStatement, as type: T.Type = T.self) throws -> [T] {
        try rows(statement).map { try $0.first(as: T.self) }
    }

    /// Each row as a `Decodable` type, read by column name.
    public func decode<T: Decodable>(_ type: T.Type, _ statement: SQLStatement) throws -> [T] {
        try rows(statement).map { try $0.decode(T.self) }
    }

    /// ` FOR UPDATE` on PostgreSQL, where a row read to be changed is locked for the transaction; nothing on SQLite,
    /// whose write transaction runs alone.
    public var forUpdate: String {
        switch dialect {
        case .sqlite: ""
        case .postgres: " FOR UPDATE"
        }
    }

    /// The next number of `table`'s `sequence` column: SQLite's one writer counts on from the highest; PostgreSQL's
    /// sequence `name` hands each transaction its own.
    public func nextSequence(of table: String, sequence name: String) throws -> Int {
        switch dialect {
        case .sqlite: try value("SELECT coalesce(max(sequence), 0) + 1 FROM \(raw: table)") ?? 1
        case .postgres: try value("SELECT nextval(\(name))") ?? 1
        }
    }
}

/// A statement broke a unique constraint: on PostgreSQL, another host wrote the same key first.
public struct SQLUniqueViolation: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
