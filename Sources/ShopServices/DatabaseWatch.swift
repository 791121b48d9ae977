import Foundation
import StoragePostgres

/// `serve`'s eye on the shared PostgreSQL: asks it every few seconds whether it answers, and
/// says in the log when that changes. Serving goes on either way; sessions wait for the database.
public enum DatabaseWatch {
    /// Starts the watch as a task of its own; it runs until the process ends.
    public static func start(_ database: PostgresDatabase, every interval: Duration = .seconds(2), announce: @escaping @Sendable (String) -> Void) {
        Task.detached {
            var wasDown = false
            while !Task.isCancelled {
                var failure: PostgresDatabaseError?
                do throws(PostgresDatabaseError) {
                    try await database.ping()
                } catch {
                    failure = error
                }
                switch (failure, wasDown) {
                case (let error?, false) where error.isUnreachable:
                    announce("database down: \(error); still accepting shoppers, whose sessions say the database is not reachable and retry")
                    wasDown = true
                case (nil, true):
                    announce("database back: \(database.location) answers again")
                    wasDown = false
                default:
                    break
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
