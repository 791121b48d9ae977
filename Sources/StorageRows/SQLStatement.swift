import Foundation

/// One statement and its values, written once for both databases. Each interpolated value becomes a numbered
/// parameter, `$1`, `$2`…, which PostgreSQL reads by number and SQLite by name. Text that is SQL, not a value, goes in
/// with `\(raw:)`.
public struct SQLStatement: Sendable, ExpressibleByStringInterpolation {
    public private(set) var text: String
    public private(set) var values: [SQLValue]

    public init(stringLiteral text: String) {
        self.text = text
        values = []
    }

    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
        values = stringInterpolation.values
    }

    /// A statement whose parameters are already written in its text.
    init(text: String, values: [SQLValue]) {
        self.text = text
        self.values = values
    }

    /// `other` after this statement, its parameters numbered on from this one's.
    public mutating func append(_ other: SQLStatement) {
        text += values.isEmpty ? other.text : StringInterpolation.renumbered(other.text, by: values.count)
        values += other.values
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        var values: [SQLValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 3)
            values.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) { text += literal }

        /// A value, as the next parameter.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            values.append(value.sqlValue)
            text += "$\(values.count)"
        }

        /// A value or null, as the next parameter.
        public mutating func appendInterpolation<Value: SQLBindable>(_ value: Value?) {
            appendInterpolation(value.map(\.sqlValue) ?? .null)
        }

        /// A list of values, as a parenthesized list of parameters: `IN \(list: ids)`.
        public mutating func appendInterpolation(list: [some SQLBindable]) {
            text += "("
            for (index, value) in list.enumerated() {
                if index > 0 { text += ", " }
                appendInterpolation(value)
            }
            text += list.isEmpty ? "NULL)" : ")"
        }

        /// Text that is SQL: a column list, an SQL constant. Never a value from outside.
        public mutating func appendInterpolation(raw sql: String) { text += sql }

        /// Another statement's text and values, its parameters numbered on from this one's.
        public mutating func appendInterpolation(_ sql: SQLStatement) {
            text += sql.values.isEmpty || values.isEmpty ? sql.text : Self.renumbered(sql.text, by: values.count)
            values += sql.values
        }

        /// `text` with each `$n` outside quotes moved on by `offset`.
        static func renumbered(_ text: String, by offset: Int) -> String {
            var result = ""
            var quoted = false
            var index = text.startIndex
            while index < text.endIndex {
                let character = text[index]
                if character == "'" { quoted.toggle() }
                if character == "$", !quoted {
                    let digits = text[text.index(after: index)...].prefix { $0.isASCII && $0.isNumber }
                    if let number = Int(digits) {
                        result += "$\(number + offset)"
                        index = digits.endIndex
                        continue
                    }
                }
                result.append(character)
                index = text.index(after: index)
            }
            return result
        }
    }
}

/// One value as both databases take and give it. A null has no type: PostgreSQL takes it from where it stands, so a
/// parameter that is only compared with null is cast (`CAST($1 AS TEXT) IS NULL`).
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case bool(Bool)
    case blob(Data)
}

/// A Swift value that binds as one parameter.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
}

extension Substring: SQLBindable {
    public var sqlValue: SQLValue { .text(String(self)) }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .integer(self) }
}

extension Double: SQLBindable {
    public var sqlValue: SQLValue { .real(self) }
}

extension Bool: SQLBindable {
    public var sqlValue: SQLValue { .bool(self) }
}

extension Data: SQLBindable {
    public var sqlValue: SQLValue { .blob(self) }
}

/// A moment, as the shop stores every moment: seconds since 1970, a real number.
extension Date: SQLBindable {
    public var sqlValue: SQLValue { .real(timeIntervalSince1970) }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { map(\.sqlValue) ?? .null }
}
