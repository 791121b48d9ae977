import Foundation

/// One row read from either database, its cells by column name.
public struct SQLRow: Sendable, Equatable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The cell in `column`, read as `T`; a missing column or a cell of another kind throws, naming both.
    public subscript<T: SQLReadable>(_ column: String) -> T {
        get throws {
            guard let index = columns.firstIndex(of: column) else { throw SQLReadError("no column \(column) in the row") }
            return try T(sql: values[index], column: column)
        }
    }

    /// The first cell, read as `T`: a `count(*)`, one document.
    public func first<T: SQLReadable>(as type: T.Type = T.self) throws -> T {
        guard let value = values.first else { throw SQLReadError("a row with no columns") }
        return try T(sql: value, column: columns[0])
    }

    /// The row as a `Decodable` type, a property `shipTo` from the column `ship_to`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try T(from: SQLRowDecoder(row: self))
    }
}

/// A row that did not read as the code expected; the message names the column.
public struct SQLReadError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A Swift value that one cell reads as.
public protocol SQLReadable {
    init(sql value: SQLValue, column: String) throws
}

extension SQLReadable {
    static func mismatch(_ value: SQLValue, _ column: String) -> SQLReadError {
        SQLReadError("column \(column) holds \(value), not \(Self.self)")
    }
}

extension String: SQLReadable {
    public init(sql value: SQLValue, column: String) throws {
        guard case .text(let text) = value else { throw Self.mismatch(value, column) }
        self = text
    }
}

extension Int64: SQLReadable {
    public init(sql value: SQLValue, column: String) throws {
        switch value {
        case .integer(let number): self = number
        case .bool(let flag): self = flag ? 1 : 0
        case .null, .real, .text, .blob: throw Self.mismatch(value, column)
        }
    }
}

extension Int: SQLReadable {
    public init(sql value: SQLValue, column: String) throws {
        self = Int(try Int64(sql: value, column: column))
    }
}

extension Double: SQLReadable {
    /// SQLite gives a whole number an expression made (`max(at)`) as an integer.
    public init(sql value: SQLValue, column: String) throws {
        switch value {
        case .real(let number): self = number
        case .integer(let number): self = Double(number)
        case .null, .text, .bool, .blob: throw Self.mismatch(value, column)
        }
    }
}

extension Bool: SQLReadable {
    /// SQLite keeps a flag as 0 or 1.
    public init(sql value: SQLValue, column: String) throws {
        switch value {
        case .bool(let flag): self = flag
        case .integer(let number): self = number != 0
        case .null, .real, .text, .blob: throw Self.mismatch(value, column)
        }
    }
}

extension Data: SQLReadable {
    public init(sql value: SQLValue, column: String) throws {
        guard case .blob(let bytes) = value else { throw Self.mismatch(value, column) }
        self = bytes
    }
}

extension Date: SQLReadable {
    public init(sql value: SQLValue, column: String) throws {
        self = Date(timeIntervalSince1970: try Double(sql: value, column: column))
    }
}

extension Optional: SQLReadable where Wrapped: SQLReadable {
    public init(sql value: SQLValue, column: String) throws {
        if case .null = value {
            self = nil
        } else {
            self = try Wrapped(sql: value, column: column)
        }
    }
}
