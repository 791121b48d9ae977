import Foundation
import LiveObjects
import ShopPorts

/// The payment provider's events the shop handled, in `provider_event`.
public final class SQLProviderEvents: ProviderEventLog {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func handledEvent(_ id: String, provider: String) async throws -> Bool {
        try await database.run(.read) { connection in
            try connection.row("SELECT 1 FROM provider_event WHERE provider = \(provider) AND id = \(id)") != nil
        }
    }

    public func recordEvent(_ header: ProviderEventHeader, provider: String, orderNumber: String?, outcome: String, at: Date) async throws {
        try await database.run(.write) { connection in
            try connection.execute(
                """
                INSERT INTO provider_event (provider, id, type, order_number, outcome, received_at)
                VALUES (\(provider), \(header.id), \(header.type), \(orderNumber), \(outcome), \(at))
                ON CONFLICT (provider, id) DO NOTHING
                """)
        }
    }
}

extension SQLProviderEvents: LiveObject {}
