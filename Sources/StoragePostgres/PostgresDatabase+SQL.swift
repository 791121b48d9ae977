import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import ShopPorts
import StorageRows

/// The shared repositories' SQL on PostgreSQL. A body's calls block, so it runs on this database's own threads, one
/// for each connection the pool may hold, and each statement waits there for the server's answer; the deadline,
/// the retries on a deadlock and the translation of failures are the ones every call has.
extension PostgresDatabase: SQLDatabase {
    public func run<T: Sendable>(_ access: SQLAccess, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let threads = blockingThreads
        let blocking: @Sendable (PostgresConnection) async throws -> T = { connection in
            try await threads.runIfActive { try body(BlockingPostgresConnection(connection: connection)) }
        }
        switch access {
        case .read, .readFresh: return try await read(blocking)
        case .write: return try await write(blocking)
        case .readConsistent:
            return try await write { connection in
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: PostgresDatabase.quiet)
                return try await blocking(connection)
            }
        case .writeLong:
            do {
                return try await transaction(timeout: .seconds(600), blocking)
            } catch let error as PostgresDatabaseError {
                throw error.storageError
            }
        case .writeOneStatement, .writeUnsynced: return try await writeInOneStatement(blocking)
        }
    }
}

/// One pooled connection as the shared repositories use it: each call sends its statement and waits for the rows.
struct BlockingPostgresConnection: SQLConnection {
    let connection: PostgresConnection
    var dialect: Schema.Dialect { .postgres }

    @discardableResult func execute(_ statement: SQLStatement) throws -> Int {
        try result(statement).metadata.rows ?? 0
    }

    func rows(_ statement: SQLStatement) throws -> [SQLRow] {
        try result(statement).rows.map { row in
            var columns: [String] = []
            var values: [SQLValue] = []
            for cell in row {
                columns.append(cell.columnName)
                values.append(try Self.value(cell))
            }
            return SQLRow(columns: columns, values: values)
        }
    }

    private func result(_ statement: SQLStatement) throws -> PostgresQueryResult {
        // The driver would refuse it as an outage ("not reachable"); it is the statement that is too large.
        guard statement.values.count <= Int(UInt16.max) else {
            throw StorageError("a statement of \(statement.values.count) values, more than PostgreSQL takes (65,535)")
        }
        var bindings = PostgresBindings(capacity: statement.values.count)
        for value in statement.values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .text(let text): bindings.append(text)
            case .bool(let flag): bindings.append(flag)
            case .blob(let bytes): try bindings.append(bytes)
            }
        }
        do {
            return try connection.query(PostgresQuery(unsafeSQL: statement.text, binds: bindings), logger: PostgresDatabase.quiet).wait()
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            // A broken unique constraint as both databases name it.
            throw SQLUniqueViolation(error.serverInfo?[.message] ?? "a unique constraint")
        }
    }

    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .bool: return .bool(try cell.decode(Bool.self))
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .numeric:
            // `sum` of integers is a numeric; a whole one reads as the integer it is.
            let number = try cell.decode(Decimal.self)
            if let whole = Int64(exactly: NSDecimalNumber(decimal: number).doubleValue), Decimal(whole) == number { return .integer(whole) }
            return .real(NSDecimalNumber(decimal: number).doubleValue)
        case .bytea: return .blob(try cell.decode(Data.self))
        default: return .text(try cell.decode(String.self))
        }
    }
}
