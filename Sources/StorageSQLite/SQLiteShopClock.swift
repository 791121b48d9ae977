import Foundation
import GRDB
import ShopPorts

/// The shop clock's offset in SQLite's `shop_clock` (schema v35).
public struct SQLiteShopClock: ShopClockRepository {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func offsetSeconds() async throws -> Int64 {
        try await database.read { db in try Int64.fetchOne(db, sql: "SELECT offset_seconds FROM shop_clock WHERE id = 1") ?? 0 }
    }

    public func setOffsetSeconds(_ seconds: Int64, at date: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO shop_clock (id, offset_seconds, moved_at) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET offset_seconds = excluded.offset_seconds, moved_at = excluded.moved_at
                    """, arguments: [seconds, date.timeIntervalSince1970])
        }
    }
}
