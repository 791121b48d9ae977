import Foundation
import PostgresNIO
import ShopPorts

/// The shop clock's offset in PostgreSQL's `shop_clock` (schema v35), which every host of the shop reads.
public struct PostgresShopClock: ShopClockRepository {
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func offsetSeconds() async throws -> Int64 {
        try await database.read { connection in
            for try await seconds in try await connection.query(
                "SELECT offset_seconds FROM shop_clock WHERE id = 1", logger: PostgresDatabase.quiet
            ).decode(Int64.self) { return seconds }
            return 0
        }
    }

    public func setOffsetSeconds(_ seconds: Int64, at date: Date) async throws {
        let stamp = date.timeIntervalSince1970
        _ = try await database.write { connection in
            try await connection.query(
                """
                INSERT INTO shop_clock (id, offset_seconds, moved_at) VALUES (1, \(seconds), \(stamp))
                ON CONFLICT (id) DO UPDATE SET offset_seconds = excluded.offset_seconds, moved_at = excluded.moved_at
                """, logger: PostgresDatabase.quiet)
        }
    }
}
