import Foundation
import GRDB
import StorageSQLite
import StorefrontTesting
import Testing

/// The shop's tables as both databases hold them, in terms both share: what the schema means, not how each spells it.
struct SchemaShape: Equatable, CustomStringConvertible {
    /// A column: its family of types (`text`, `integer`, `real`, `blob`, `boolean`) and whether it may be NULL.
    struct Column: Hashable, Comparable, CustomStringConvertible {
        var name: String
        var family: String
        var nullable: Bool
        static func < (a: Column, b: Column) -> Bool { a.name < b.name }
        var description: String { "\(name) \(family)\(nullable ? "" : " not null")" }
    }

    /// An index by what it does: its columns in order, whether it is unique, and whether it covers only some rows.
    struct Index: Hashable, Comparable, CustomStringConvertible {
        var columns: [String]
        var unique: Bool
        var partial: Bool
        static func < (a: Index, b: Index) -> Bool { a.description < b.description }
        var description: String { "\(unique ? "unique " : "")(\(columns.joined(separator: ", ")))\(partial ? " partial" : "")" }
    }

    struct Table: Equatable {
        var columns: [Column] = []
        var primaryKey: [String] = []
        var indexes: [Index] = []
        /// `column → table(column)`, sorted.
        var foreignKeys: [String] = []
    }

    var tables: [String: Table] = [:]

    /// Each table's shape, one line per part, for a diff a reader can follow.
    var description: String {
        tables.keys.sorted().flatMap { name -> [String] in
            let table = tables[name]!
            return ["\(name): primary key (\(table.primaryKey.joined(separator: ", ")))"]
                + table.columns.map { "\(name).\($0)" } + table.indexes.map { "\(name) index \($0)" } + table.foreignKeys.map { "\(name) fk \($0)" }
        }.joined(separator: "\n")
    }

    /// The family a declared type belongs to, in either database's spelling.
    static func family(_ declared: String) -> String {
        switch declared.lowercased() {
        case "text", "character varying", "varchar": "text"
        case "integer", "int", "bigint", "smallint", "bigserial", "serial": "integer"
        case "real", "double precision", "numeric", "double": "real"
        case "blob", "bytea": "blob"
        // SQLite has no booleans: 0 and 1 in an INTEGER column.
        case "boolean", "bool": "integer"
        case "tsvector": "search"
        case let other: "unknown type \(other)"
        }
    }
}

extension SchemaShape {
    /// The shape of a migrated SQLite database (GRDB's and SQLite's own tables left out).
    static func of(sqlite database: SQLiteDatabase) throws -> SchemaShape {
        try database.pool.read { db in
            var shape = SchemaShape()
            let names = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'")
            for name in names {
                var table = Table()
                let columns = try db.columns(in: name)
                let primaryKey = try db.primaryKey(name).columns
                table.primaryKey = primaryKey
                table.columns = columns.map {
                    Column(name: $0.name, family: family($0.type), nullable: !$0.isNotNull && !primaryKey.contains($0.name))
                }.sorted()
                for row in try Row.fetchAll(db, sql: "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?)", arguments: [name])
                where row["origin"] as String != "pk" {
                    let indexColumns = try Row.fetchAll(
                        db, sql: "SELECT name, desc FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", arguments: [row["name"] as String]
                    )
                    .map { ($0["name"] as String) + (($0["desc"] as Bool) ? " DESC" : "") }
                    table.indexes.append(Index(columns: indexColumns, unique: row["unique"] as Bool, partial: row["partial"] as Bool))
                }
                table.indexes.sort()
                table.foreignKeys = try db.foreignKeys(on: name).flatMap { key in
                    key.mapping.map { "\($0.origin) → \(key.destinationTable)(\($0.destination))" }
                }.sorted()
                shape.tables[name] = table
            }
            return shape
        }
    }

    /// The shape of a migrated PostgreSQL database's public schema (its migration ledger left out), read with psql.
    static func of(postgres fixture: PostgresFixture) throws -> SchemaShape {
        var shape = SchemaShape()
        let ledger = "storefront_migrations"
        for line in try fixture.rows(
            """
            SELECT table_name || '|' || column_name || '|' || data_type || '|' || is_nullable FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name != '\(ledger)'
            """)
        {
            let parts = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            shape.tables[parts[0], default: Table()].columns.append(Column(name: parts[1], family: family(parts[2]), nullable: parts[3] == "YES"))
        }
        for name in shape.tables.keys { shape.tables[name]?.columns.sort() }
        // pg_get_indexdef spells out each index: CREATE [UNIQUE] INDEX n ON public.t USING btree (a, b) [WHERE …].
        for line in try fixture.rows(
            """
            SELECT i.indrelid::regclass || '|' || i.indisprimary || '|' || pg_get_indexdef(i.indexrelid) FROM pg_index i
            JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relname != '\(ledger)'
            """)
        {
            let parts = line.split(separator: "|", maxSplits: 2).map(String.init)
            let definition = parts[2]
            guard let open = definition.firstIndex(of: "("), let close = definition[open...].firstIndex(of: ")") else { continue }
            let columns = definition[definition.index(after: open)..<close].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
            if parts[1] == "t" || parts[1] == "true" {
                shape.tables[parts[0]]?.primaryKey = columns
            } else {
                shape.tables[parts[0]]?.indexes.append(
                    Index(columns: columns, unique: definition.hasPrefix("CREATE UNIQUE"), partial: definition.contains(" WHERE ")))
            }
        }
        for line in try fixture.rows(
            """
            SELECT conrelid::regclass || '|' || pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace
            """)
        {
            // FOREIGN KEY (order_number) REFERENCES orders(number)
            let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
            let match = parts[1].firstMatch(of: #/FOREIGN KEY \(([^)]*)\) REFERENCES ([a-z_]+)\(([^)]*)\)/#)
            guard let match else { continue }
            let origins = match.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let destinations = match.3.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for (origin, destination) in zip(origins, destinations) {
                shape.tables[parts[0]]?.foreignKeys.append("\(origin) → \(match.2)(\(destination))")
            }
        }
        for name in shape.tables.keys {
            shape.tables[name]?.indexes.sort()
            shape.tables[name]?.foreignKeys.sort()
        }
        return shape
    }
}

/// The SQLite and PostgreSQL migrations are written apart; this keeps them meaning the same schema. It fails on any
/// table, column, type family, nullability, key, index or foreign key one holds and the other does not.
@Suite("Schema drift", .ownThreads)
struct SchemaDriftTests {
    /// Product search is each database's own: SQLite's FTS5 (a virtual table and its shadow tables, over the product's
    /// rowid, with the id unique beside it) and PostgreSQL's tsvector column with its GIN index.
    static let sqliteOnly: Set<String> = ["product index unique (id)", "product.rowid integer not null", "product: primary key (rowid)"]
    static let sqliteOnlyTables = "product_search"
    static let postgresOnly: Set<String> = ["product index (search)", "product.search search not null", "product: primary key (id)"]

    /// What one database holds and the other does not, past each database's own parts (its search).
    static func drift(sqlite: SchemaShape, postgres: SchemaShape) -> (sqliteOnly: [String], postgresOnly: [String]) {
        let (left, right) = (
            Set(sqlite.description.split(separator: "\n").map(String.init)), Set(postgres.description.split(separator: "\n").map(String.init))
        )
        let inSQLiteOnly = left.subtracting(right).filter { !$0.hasPrefix(Self.sqliteOnlyTables) }
        return (inSQLiteOnly.subtracting(Self.sqliteOnly).sorted(), right.subtracting(left).subtracting(Self.postgresOnly).sorted())
    }

    @Test func sqliteAndPostgreSQLHoldTheSameTablesColumnsKeysAndIndexes() async throws {
        let sqlite = try SchemaShape.of(sqlite: try SQLiteDatabase.open(directory: TemporaryDirectory.make()))
        let postgres = try SchemaShape.of(postgres: try await PostgresFixture())
        #expect(sqlite.tables.count > 20, "the whole schema was read: \(sqlite.tables.keys.sorted())")
        let drift = Self.drift(sqlite: sqlite, postgres: postgres)
        #expect(drift.sqliteOnly == [], "in SQLite only")
        #expect(drift.postgresOnly == [], "in PostgreSQL only")
        let (left, right) = (Set(sqlite.description.split(separator: "\n")), Set(postgres.description.split(separator: "\n")))
        #expect(
            Self.sqliteOnly.isSubset(of: left.subtracting(right).map(String.init))
                && Self.postgresOnly.isSubset(of: right.subtracting(left).map(String.init)),
            "each database's own parts are still its own")
    }

    /// The standing case that shows the check can fail: columns and an index added on one side only are each named,
    /// on the side that has them.
    @Test func aColumnOrAnIndexOnOneSideOnlyIsNamedOnThatSide() async throws {
        let directory = TemporaryDirectory.make()
        let database = try SQLiteDatabase.open(directory: directory)
        let fixture = try await PostgresFixture()
        let before = Self.drift(sqlite: try SchemaShape.of(sqlite: database), postgres: try SchemaShape.of(postgres: fixture))
        try #require(before.sqliteOnly == [] && before.postgresOnly == [], "the two agree before the change")

        try await database.pool.write { db in
            try db.execute(sql: "ALTER TABLE orders ADD COLUMN drift_probe TEXT")
            try db.execute(sql: "CREATE INDEX orders_drift_probe ON orders(drift_probe)")
        }
        _ = try fixture.rows("ALTER TABLE orders ADD COLUMN drift_only_here BIGINT NOT NULL DEFAULT 0")
        let after = Self.drift(sqlite: try SchemaShape.of(sqlite: database), postgres: try SchemaShape.of(postgres: fixture))
        #expect(after.sqliteOnly == ["orders index (drift_probe)", "orders.drift_probe text"])
        #expect(after.postgresOnly == ["orders.drift_only_here integer not null"])
    }
}
