import Logging
import PostgresNIO
import StorageRows

extension PostgresDatabase {
    /// One schema step: its name, recorded in `storefront_migrations`, and its SQL.
    struct Migration: Sendable {
        var identifier: String
        var sql: [String]
    }

    /// Every schema step, in order, as `Schema` writes it for both databases.
    static let migrations: [Migration] = Schema.migrations(for: .postgres).map { Migration(identifier: $0.name, sql: $0.sql) }

    /// A constant for `pg_advisory_xact_lock`, so two hosts starting at once migrate one after the other.
    static let migrationLock: Int64 = 0x5354_4F52_4546_524E

    /// Applies the steps this database lacks, all in one transaction; refuses a database a
    /// newer storefront wrote. Returns the steps it applied.
    @discardableResult
    public func migrate() async throws(PostgresDatabaseError) -> [String] {
        let migrations = Self.migrations
        let location = location.description
        do {
            return try await call(timeout: .seconds(120)) { client in
                try await client.withTransaction(logger: Self.quiet) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: Self.quiet)
                    try await connection.query(
                        "CREATE TABLE IF NOT EXISTS storefront_migrations (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                        logger: Self.quiet)
                    let applied = try await Self.appliedMigrations(connection)
                    let unknown = applied.subtracting(migrations.map(\.identifier))
                    guard unknown.isEmpty else { throw PostgresDatabaseError.newerSchema(location: location, unknownMigrations: unknown.sorted()) }
                    var done: [String] = []
                    for migration in migrations where !applied.contains(migration.identifier) {
                        for statement in migration.sql { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Self.quiet) }
                        try await connection.query(
                            "INSERT INTO storefront_migrations (identifier) VALUES (\(migration.identifier))", logger: Self.quiet)
                        done.append(migration.identifier)
                    }
                    return done
                }
            }
        } catch {
            throw error as? PostgresDatabaseError ?? .server(state: "", message: "\(error)")
        }
    }

    /// Refuses a database this version cannot use: a newer schema, or one not migrated yet. Writes nothing.
    public func checkSchema() async throws(PostgresDatabaseError) {
        let migrations = Self.migrations.map(\.identifier)
        let location = location.description
        let applied: Set<String>
        do {
            applied = try await call { client in
                try await client.withConnection { connection in
                    let exists =
                        try await connection.query("SELECT to_regclass('storefront_migrations') IS NOT NULL", logger: Self.quiet).collect().first?
                        .decode(Bool.self) ?? false
                    return exists ? try await Self.appliedMigrations(connection) : []
                }
            }
        } catch {
            throw error as? PostgresDatabaseError ?? .server(state: "", message: "\(error)")
        }
        let unknown = applied.subtracting(migrations)
        guard unknown.isEmpty else { throw .newerSchema(location: location, unknownMigrations: unknown.sorted()) }
        let missing = migrations.filter { !applied.contains($0) }
        guard missing.isEmpty else { throw .notMigrated(location: location, missing: missing) }
    }

    private static func appliedMigrations(_ connection: PostgresConnection) async throws -> Set<String> {
        var applied: Set<String> = []
        for try await identifier in try await connection.query("SELECT identifier FROM storefront_migrations", logger: quiet).decode(String.self) {
            applied.insert(identifier)
        }
        return applied
    }

    /// A logger that drops everything: the driver's per-query lines would only repeat what the database's errors say.
    public static let quiet = Logger(label: "storefront.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
}
