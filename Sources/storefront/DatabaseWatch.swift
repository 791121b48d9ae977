import Foundation
import StorePostgres

/// `serve`'s eye on the shared PostgreSQL: asks it every few seconds whether it answers, and
/// says in the log when that changes. Serving goes on either way; sessions wait for the database.
enum DatabaseWatch {
    /// Starts the watch on a thread of its own (a ping blocks for up to the connect timeout); it runs until the process ends.
    static func start(_ database: PostgresStore, every interval: TimeInterval = 2, announce: @escaping @Sendable (String) -> Void) {
        let thread = Thread {
            var wasDown = false
            while true {
                let failure = Result { () throws(PostgresStoreError) in try database.ping() }.failure
                switch (failure, wasDown) {
                case (let error?, false) where error.isUnreachable:
                    announce("database down: \(error); still accepting shoppers, whose sessions say the store is not reachable and retry")
                    wasDown = true
                case (nil, true):
                    announce("database back: \(database.location) answers again")
                    wasDown = false
                default:
                    break
                }
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.name = "database-watch"
        thread.start()
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
