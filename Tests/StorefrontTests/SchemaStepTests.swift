import StorageRows
import Testing

/// The schema written once: each database records the steps it always recorded, under the names it shipped, and no
/// word in braces is left unspelled.
@Suite("Schema steps")
struct SchemaStepTests {
    /// A shipped step's name is in every database that ran it: a renamed or reordered one would run again there.
    @Test func eachDatabaseRecordsTheStepsItShipped() {
        let sqlite = Schema.migrations(for: .sqlite).map(\.name)
        let postgres = Schema.migrations(for: .postgres).map(\.name)
        #expect(sqlite.count == 41)
        #expect(
            sqlite.prefix(5) == ["v1-catalog", "v2-stock-orders-payments", "v3-carts-wallets-addresses", "v4-accounts", "v5-provider-references"])
        #expect(sqlite.contains("v13-stock-bounds") && sqlite.contains("v17-open-orders-index"))
        #expect(postgres.first == "v1-shop")
        #expect(postgres == ["v1-shop"] + sqlite.dropFirst(5).filter { $0 != "v13-stock-bounds" && $0 != "v17-open-orders-index" })
    }

    /// PostgreSQL's first step is SQLite's first five and its v17: the open orders' index, never the one on sequence.
    @Test func postgresFirstStepEndsWithTheOpenOrdersIndex() throws {
        let first = try #require(Schema.migrations(for: .postgres).first)
        #expect(first.sql.last == "CREATE INDEX orders_open ON orders(sequence) WHERE status IN ('charging', 'unknown')")
        #expect(first.sql.contains("DROP INDEX orders_by_sequence"))
        #expect(first.sql.contains("CREATE SEQUENCE order_sequence"))
        #expect(!first.sql.contains { $0.contains("fts5") }, "SQLite's search is its own")
    }

    @Test func everyWordInBracesIsSpelledForEachDatabase() {
        for dialect in [Schema.Dialect.sqlite, .postgres] {
            for (name, statements) in Schema.migrations(for: dialect) {
                for statement in statements {
                    let left = statement.matches(of: /\{[a-z_]+\}/).map { String($0.output) }
                    #expect(left.isEmpty, "\(dialect) \(name): \(left)")
                }
            }
        }
        let spelled = Schema.migrations(for: .postgres).flatMap(\.sql).joined()
        #expect(spelled.contains("placed_at double precision") && spelled.contains("is_default boolean NOT NULL DEFAULT false"))
        let sqlite = Schema.migrations(for: .sqlite).flatMap(\.sql).joined()
        #expect(
            sqlite.contains("placed_at REAL") && sqlite.contains(") WITHOUT ROWID") && sqlite.contains("sequence INTEGER PRIMARY KEY AUTOINCREMENT"))
    }
}
