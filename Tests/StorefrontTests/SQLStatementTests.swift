import Foundation
import StorageRows
import StorageSQLite
import Testing

/// The SQL written once: values become numbered parameters in the order written, however statements are put
/// together, and a row reads by column name, a cell of another kind refused with the column's name.
@Suite("SQL written once")
struct SQLStatementTests {
    @Test func eachValueIsTheNextNumberedParameterAndRawTextIsNone() {
        let customer: String? = nil
        let statement: SQLStatement = "SELECT \(raw: "id, name") FROM t WHERE a = \("x") AND b = \(customer) AND c IN \(list: [1, 2])"
        #expect(statement.text == "SELECT id, name FROM t WHERE a = $1 AND b = $2 AND c IN ($3, $4)")
        #expect(statement.values == [.text("x"), .null, .integer(1), .integer(2)])
        let none: SQLStatement = "SELECT 1 WHERE id IN \(list: [String]())"
        #expect(none.text == "SELECT 1 WHERE id IN (NULL)", "an empty list matches nothing and is still SQL")
    }

    @Test func aStatementPutInAnotherIsNumberedOnButNotInsideQuotes() {
        let inner: SQLStatement = "b = \(2) AND note = '$1'"
        var outer: SQLStatement = "a = \(1) AND (\(inner))"
        #expect(outer.text == "a = $1 AND (b = $2 AND note = '$1')")
        outer.append(" OR c = \(3)")
        #expect(outer.text == "a = $1 AND (b = $2 AND note = '$1') OR c = $3")
        #expect(outer.values == [.integer(1), .integer(2), .integer(3)])
    }

    @Test func aRowReadsByNameAndRefusesACellOfAnotherKindNamingIt() throws {
        let row = SQLRow(columns: ["id", "at", "flag", "note"], values: [.text("a"), .integer(7), .integer(1), .null])
        #expect(try row["id"] as String == "a")
        #expect(try row["at"] as Double == 7, "SQLite gives a whole number an expression made as an integer")
        #expect(try row["flag"] as Bool)
        #expect(try row["note"] as String? == nil)
        #expect(throws: SQLReadError.self) { try row["id"] as Int }
        let missing = #expect(throws: SQLReadError.self) { try row["nope"] as String }
        #expect(missing?.description == "no column nope in the row")
        let mismatch = #expect(throws: SQLReadError.self) { try row["note"] as String }
        #expect(mismatch?.description.contains("column note") == true)
    }

    struct Decoded: Decodable, Equatable {
        var shipTo: String
        var unitPrice: Int64
        var variantSku: String?
    }

    @Test func aRowDecodesByTheSnakeCaseOfEachProperty() throws {
        let row = SQLRow(columns: ["ship_to", "unit_price", "variant_sku"], values: [.text("Berlin"), .integer(1200), .null])
        #expect(try row.decode(Decoded.self) == Decoded(shipTo: "Berlin", unitPrice: 1200, variantSku: nil))
    }

    /// On SQLite the parameters are bound by name: the same statement reads the same values whichever order they stand in.
    @Test func sqliteRunsTheSharedSQLAndABodysOwnErrorPassesThroughAfterTheRollback() async throws {
        let database = try SQLiteDatabase.inMemory()
        let answer = try await database.run(.read) { connection in
            try connection.row("SELECT \("a") AS first, \(2) AS second, \(Optional<String>.none) AS third")
        }
        #expect(answer == SQLRow(columns: ["first", "second", "third"], values: [.text("a"), .integer(2), .null]))
        struct Refusal: Error {}
        await #expect(throws: Refusal.self) {
            try await database.run(.write) { connection in
                try connection.execute("INSERT INTO shop_clock (id, offset_seconds, moved_at) VALUES (1, \(60), \(Date()))")
                throw Refusal()
            }
        }
        let kept: Int64? = try await database.run(.read) { connection in try connection.value("SELECT offset_seconds FROM shop_clock") }
        #expect(kept == nil, "the body's refusal rolled its insert back")
        // A second row under one key is the error both databases give it, whatever each calls it.
        await #expect(throws: SQLUniqueViolation.self) {
            try await database.run(.write) { connection in
                for _ in 0..<2 { try connection.execute("INSERT INTO shop_clock (id, offset_seconds, moved_at) VALUES (1, \(60), \(Date()))") }
            }
        }
    }
}
