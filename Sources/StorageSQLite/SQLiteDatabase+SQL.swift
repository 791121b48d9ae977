import Foundation
import GRDB
import StorageRows

/// The shared repositories' SQL on SQLite, in GRDB's own transactions: a body runs on GRDB's reader or writer queue.
extension SQLiteDatabase: SQLDatabase {
    /// A failure of the database reads in the shopper's words (`StorageError`); what the body throws itself, a
    /// refusal of its own, passes through as it is, after the rollback.
    public func run<T: Sendable>(_ access: SQLAccess, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let marked: @Sendable (Database) throws -> T = { db in
            do {
                return try body(GRDBConnection(db: db))
            } catch let error as DatabaseError {
                throw error
            } catch {
                throw BodyFailure(error: error)
            }
        }
        do {
            switch access {
            case .read, .readConsistent: return try await read(marked)
            case .readFresh: return try await readOnWriter(marked)
            case .write, .writeLong, .writeOneStatement: return try await write(marked)
            case .writeUnsynced: return try await writeUnsynced(marked)
            }
        } catch let failure as BodyFailure {
            throw failure.error
        }
    }
}

/// What a body threw that is not the database's: `inWords` lets it through for `run` to unwrap.
struct BodyFailure: Error {
    let error: any Error
}

/// One GRDB connection as the shared repositories use it.
struct GRDBConnection: SQLConnection {
    let db: Database
    var dialect: Schema.Dialect { .sqlite }

    @discardableResult func execute(_ statement: SQLStatement) throws -> Int {
        try Self.naming {
            try compiled(statement).execute(arguments: Self.arguments(statement))
            return db.changesCount
        }
    }

    func rows(_ statement: SQLStatement) throws -> [SQLRow] {
        try Self.naming {
            let cursor = try Row.fetchCursor(compiled(statement), arguments: Self.arguments(statement))
            var rows: [SQLRow] = []
            while let row = try cursor.next() {
                rows.append(SQLRow(columns: Array(row.columnNames), values: row.databaseValues.map(Self.value)))
            }
            return rows
        }
    }

    /// The statement compiled once a connection (`cachedStatement`: compiling again was most of a cart's save), unless
    /// it binds more than `cachedValues` values: a text per size of a long list or a large batch would stay in every
    /// connection's cache for the life of the process.
    private func compiled(_ statement: SQLStatement) throws -> Statement {
        statement.values.count <= Self.cachedValues ? try db.cachedStatement(sql: statement.text) : try db.makeStatement(sql: statement.text)
    }

    /// A cart of 25 lines, an `IN` list of 256 ids.
    static let cachedValues = 256

    /// A broken unique constraint or primary key as both databases name it (PostgreSQL's 23505 is either).
    private static func naming<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError
            where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
        {
            throw SQLUniqueViolation(error.message ?? "\(error)")
        }
    }

    /// The values by name: SQLite numbers `$1`, `$2`… in the order they first appear in the text, which a statement
    /// written by hand (`{into}` before `{from}`) need not follow.
    static func arguments(_ statement: SQLStatement) -> StatementArguments {
        var named: [String: DatabaseValue] = [:]
        named.reserveCapacity(statement.values.count)
        for (index, value) in statement.values.enumerated() { named[String(index + 1)] = databaseValue(value) }
        return StatementArguments(named)
    }

    static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .bool(let flag): flag.databaseValue
        case .blob(let bytes): bytes.databaseValue
        }
    }

    static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .integer(number)
        case .double(let number): .real(number)
        case .string(let text): .text(text)
        case .blob(let bytes): .blob(bytes)
        }
    }
}
