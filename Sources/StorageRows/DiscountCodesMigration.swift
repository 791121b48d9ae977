import Foundation
import ShopModels

/// Schema step v28, the same on SQLite and PostgreSQL: the discount codes (their definition as a JSON document) and the
/// uses held, one per order at most, let go when the order is declined or canceled.
public enum DiscountCodesMigration {
    public static let statements: [String] = [
        """
        CREATE TABLE discount_code (
            code TEXT PRIMARY KEY,
            document TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL
        )
        """,
        """
        CREATE TABLE discount_use (
            order_id TEXT PRIMARY KEY,
            code TEXT NOT NULL REFERENCES discount_code (code),
            customer TEXT NOT NULL,
            held_at DOUBLE PRECISION NOT NULL,
            released_at DOUBLE PRECISION
        )
        """,
        "CREATE INDEX discount_use_code ON discount_use (code, customer)",
    ]
}

/// Schema step v29, the same on SQLite and PostgreSQL: the code each order used, what it took off the goods (and, line
/// by line, as `{"stock key": minor units}`) and off the shipping. Totals charged are subtotal + shipping − both.
public enum OrderDiscountsMigration {
    public static let statements: [String] = [
        "ALTER TABLE orders ADD COLUMN discount_code TEXT",
        "ALTER TABLE orders ADD COLUMN discount_goods BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE orders ADD COLUMN discount_shipping BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE orders ADD COLUMN discount_shares TEXT",
    ]
}
