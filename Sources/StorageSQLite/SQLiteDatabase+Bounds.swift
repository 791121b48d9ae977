extension SQLiteDatabase {
    /// Stock counts held to whole numbers from 0 to 2^31-1, as PostgreSQL's `integer` columns hold them: SQLite would
    /// turn an overflowing `on_hand + n` into a REAL that no reader decodes. A column CHECK cannot be added to a table
    /// in SQLite, so triggers refuse the write instead.
    static let stockBounds = """
        CREATE TRIGGER stock_counts_bounded_on_insert BEFORE INSERT ON stock
        WHEN typeof(NEW.on_hand) != 'integer' OR typeof(NEW.reserved) != 'integer' OR typeof(NEW.sold) != 'integer'
            OR NEW.on_hand NOT BETWEEN 0 AND 2147483647 OR NEW.reserved NOT BETWEEN 0 AND 2147483647
            OR NEW.sold NOT BETWEEN 0 AND 2147483647
        BEGIN SELECT RAISE(ABORT, 'stock counts are whole numbers from 0 to 2147483647'); END;
        CREATE TRIGGER stock_counts_bounded_on_update BEFORE UPDATE ON stock
        WHEN typeof(NEW.on_hand) != 'integer' OR typeof(NEW.reserved) != 'integer' OR typeof(NEW.sold) != 'integer'
            OR NEW.on_hand NOT BETWEEN 0 AND 2147483647 OR NEW.reserved NOT BETWEEN 0 AND 2147483647
            OR NEW.sold NOT BETWEEN 0 AND 2147483647
        BEGIN SELECT RAISE(ABORT, 'stock counts are whole numbers from 0 to 2147483647'); END;
        """
}
