/// Schema step v35, the same on SQLite and PostgreSQL: how far the shop's clock runs ahead of the wall clock, so a
/// test shop's merchant can bring renewals forward (`storefront clock`). One row, none while it was never moved.
public enum ShopClockMigration {
    public static let statements: [String] = [
        """
        CREATE TABLE shop_clock (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            offset_seconds BIGINT NOT NULL,
            moved_at DOUBLE PRECISION NOT NULL
        )
        """
    ]
}
