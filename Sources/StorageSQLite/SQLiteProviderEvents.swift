import Foundation
import GRDB
import LiveObjects
import ShopPorts

/// The payment provider's events the shop handled, in SQLite's `provider_event`.
public final class SQLiteProviderEvents: ProviderEventLog {
    let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func handledEvent(_ id: String, provider: String) async throws -> Bool {
        try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT 1 FROM provider_event WHERE provider = ? AND id = ?", arguments: [provider, id]) != nil
        }
    }

    public func recordEvent(_ header: ProviderEventHeader, provider: String, orderNumber: String?, outcome: String, at: Date) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO provider_event (provider, id, type, order_number, outcome, received_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (provider, id) DO NOTHING
                    """, arguments: [provider, header.id, header.type, orderNumber, outcome, at.timeIntervalSince1970])
        }
    }
}

extension SQLiteProviderEvents: LiveObject {}
