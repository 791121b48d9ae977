import Foundation
import LiveObjects
import PostgresNIO
import ShopPorts

/// The payment provider's events the shop handled, in PostgreSQL's `provider_event`, shared by every host.
public final class PostgresProviderEvents: ProviderEventLog {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func handledEvent(_ id: String, provider: String) async throws -> Bool {
        try await database.read { connection in
            try await !connection.query("SELECT 1 FROM provider_event WHERE provider = \(provider) AND id = \(id)", logger: PostgresDatabase.quiet)
                .collect().isEmpty
        }
    }

    public func recordEvent(_ header: ProviderEventHeader, provider: String, orderNumber: String?, outcome: String, at: Date) async throws {
        _ = try await database.write { connection in
            try await connection.query(
                """
                INSERT INTO provider_event (provider, id, type, order_number, outcome, received_at)
                VALUES (\(provider), \(header.id), \(header.type), \(orderNumber), \(outcome), \(at.timeIntervalSince1970))
                ON CONFLICT (provider, id) DO NOTHING
                """, logger: PostgresDatabase.quiet)
        }
    }
}

extension PostgresProviderEvents: LiveObject {}
