import Foundation

/// Decodes a `Decodable` row type by column name, a property `shipTo` from the column `ship_to`: one row type reads
/// both databases, and a column added to it is read by every query that selects it.
struct SQLRowDecoder: Decoder {
    let row: SQLRow
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns<Key>(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a row is read by column name"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a row is read by column name"))
    }

    /// The row's columns by the snake-case form of each key.
    struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: SQLRow
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { row.columns.contains(Self.column(key)) }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard let index = row.columns.firstIndex(of: Self.column(key)) else { return true }
            return row.values[index] == .null
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try row[Self.column(key)] }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try row[Self.column(key)] }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try row[Self.column(key)] }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try row[Self.column(key)] }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try row[Self.column(key)] }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let readable = T.self as? any SQLReadable.Type else {
                throw DecodingError.typeMismatch(
                    type, .init(codingPath: [key], debugDescription: "column \(Self.column(key)) is not a text, number, flag or bytes column"))
            }
            let column = Self.column(key)
            guard let index = row.columns.firstIndex(of: column) else { throw SQLReadError("no column \(column) in the row") }
            // Swift cannot name the cast's result `T` without it: the type was checked to be `T` itself above.
            guard let value = try readable.init(sql: row.values[index], column: column) as? T else { throw SQLReadError("column \(column)") }
            return value
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "a column holds no nested row"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "a column holds no list"))
        }

        func superDecoder() throws -> any Decoder { throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "no super")) }
        func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder() }

        /// `shipTo` → `ship_to`.
        static func column(_ key: Key) -> String {
            var column = ""
            for character in key.stringValue {
                if character.isUppercase {
                    column += "_" + character.lowercased()
                } else {
                    column.append(character)
                }
            }
            return column
        }
    }
}
