import ShopModels

/// Schema step v20, the same statements on SQLite and PostgreSQL: addresses get a second street line and a region (US
/// addresses saved before take their ZIP code's state, and US and Canadian phones the +1 they were dialled with), orders
/// keep the tax rule, label, rate and jurisdiction they were charged under, and cart lines their weight.
public enum RegionsMigration {
    public static let statements: [String] = [
        "ALTER TABLE address ADD COLUMN street2 TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE address ADD COLUMN region TEXT NOT NULL DEFAULT ''",
        USZIPStates.migrationSQL,
        """
        UPDATE address SET phone = CASE WHEN substr(phone, 1, 1) = '1' THEN '+' || phone ELSE '+1 ' || phone END
        WHERE country IN ('US', 'CA') AND phone <> '' AND substr(phone, 1, 1) <> '+'
        """,
        // Orders placed before rules were added tax; their rate and jurisdiction were not kept.
        "ALTER TABLE orders ADD COLUMN tax_rule TEXT NOT NULL DEFAULT 'added'",
        "ALTER TABLE orders ADD COLUMN tax_label TEXT NOT NULL DEFAULT 'Tax'",
        "ALTER TABLE orders ADD COLUMN tax_rate INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE orders ADD COLUMN tax_jurisdiction TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE cart_line ADD COLUMN grams INTEGER NOT NULL DEFAULT 0",
    ]
}
