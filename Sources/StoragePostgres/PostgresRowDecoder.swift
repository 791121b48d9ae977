import Foundation
import PostgresNIO

/// Decodes a `Decodable` row type from a PostgreSQL row by column name, a property `shipTo` from the column `ship_to`,
/// as GRDB decodes the same type from SQLite: one row type reads both databases, and a column added to it is read by
/// both without a list of types kept in step.
struct PostgresRowDecoder: Decoder {
    let row: PostgresRandomAccessRow
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ row: PostgresRow) {
        self.row = row.makeRandomAccess()
    }

    /// A row of `type` from each of `rows`.
    static func decode<Row: Decodable>(_ type: Row.Type, from rows: PostgresRowSequence) async throws -> [Row] {
        var decoded: [Row] = []
        for try await row in rows { decoded.append(try Row(from: PostgresRowDecoder(row))) }
        return decoded
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns<Key>(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a row is read by column name"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "a row is read by column name"))
    }

    /// The row's columns by the snake-case form of each key.
    struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: PostgresRandomAccessRow
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { row.contains(Self.column(key)) }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard contains(key) else { return true }
            return row[Self.column(key)].bytes == nil
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try cell(key).decode(Bool.self) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try cell(key).decode(String.self) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try cell(key).decode(Double.self) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try cell(key).decode(Int.self) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try cell(key).decode(Int64.self) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            throw DecodingError.typeMismatch(
                type, .init(codingPath: [key], debugDescription: "column \(Self.column(key)) is not a text, number or flag column"))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "a column holds no nested row"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "a column holds no list"))
        }

        func superDecoder() throws -> any Decoder { throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "no super")) }
        func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder() }

        private func cell(_ key: Key) throws -> PostgresCell {
            guard contains(key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "no column \(Self.column(key)) in the row"))
            }
            return row[Self.column(key)]
        }

        /// `shipTo` → `ship_to`, as GRDB's `.convertFromSnakeCase` reads it the other way.
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
