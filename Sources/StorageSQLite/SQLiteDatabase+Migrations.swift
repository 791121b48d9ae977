import GRDB
import StorageRows

extension SQLiteDatabase {
    /// Every schema step, in order, as `Schema` writes it for both databases.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (name, statements) in Schema.migrations(for: .sqlite) {
            migrator.registerMigration(name) { db in
                for statement in statements { try db.execute(sql: statement) }
            }
        }
        return migrator
    }
}
