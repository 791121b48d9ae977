import Foundation
import ShopPorts

/// The shop clock's offset in `shop_clock` (schema v35), which every host of the shop reads.
public struct SQLShopClock: ShopClockRepository {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func offsetSeconds() async throws -> Int64 {
        try await database.run(.read) { connection in try connection.value("SELECT offset_seconds FROM shop_clock WHERE id = 1") ?? 0 }
    }

    public func setOffsetSeconds(_ seconds: Int64, at date: Date) async throws {
        try await database.run(.write) { connection in
            try connection.execute(
                """
                INSERT INTO shop_clock (id, offset_seconds, moved_at) VALUES (1, \(seconds), \(date))
                ON CONFLICT (id) DO UPDATE SET offset_seconds = excluded.offset_seconds, moved_at = excluded.moved_at
                """)
        }
    }
}
