import ShopPorts
import StoragePostgres
import StorageSQLite

extension ShopStorage {
    /// Whether the database can serve: it answers, and its schema is the one this version knows.
    public func databaseReadiness() async -> ReadinessCheck {
        if let postgres {
            do throws(PostgresDatabaseError) {
                try await postgres.checkSchema()
                return ReadinessCheck(name: "database", isReady: true, detail: "PostgreSQL answers; schema current")
            } catch {
                return ReadinessCheck(name: "database", isReady: false, detail: "\(error)")
            }
        }
        if let sqlite {
            let problem = await sqlite.schemaProblem()
            return ReadinessCheck(name: "database", isReady: problem == nil, detail: problem ?? "SQLite \(place); schema current")
        }
        return ReadinessCheck(name: "database", isReady: true, detail: "in memory")
    }
}
