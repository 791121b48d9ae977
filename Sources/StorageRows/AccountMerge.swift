/// Joining two accounts one person made (`storefront accounts merge`): the same statements on SQLite and PostgreSQL,
/// run in one transaction, `{from}` and `{into}` bound to the two ids. What the account left behind had becomes the
/// other's; where both have a card or an address of one id, the one kept is the kept account's.
public enum AccountMerge {
    /// What each statement moves, for the operator's summary, and the statement.
    public static let statements: [(what: String, sql: String)] = [
        ("orders", "UPDATE orders SET customer = {into} WHERE customer = {from}"),
        // Lines go after the kept account's, in their order.
        (
            "cart lines",
            """
            UPDATE cart_line SET customer = {into},
                position = position + 1000 + COALESCE((SELECT max(c.position) FROM cart_line c WHERE c.customer = {into}), 0)
            WHERE customer = {from}
            """
        ),
        (
            "cards",
            """
            UPDATE wallet_card SET customer = {into},
                is_default = CASE WHEN EXISTS (SELECT 1 FROM wallet_card w WHERE w.customer = {into} AND w.is_default = TRUE) THEN FALSE ELSE is_default END
            WHERE customer = {from} AND NOT EXISTS (SELECT 1 FROM wallet_card w WHERE w.customer = {into} AND w.id = wallet_card.id)
            """
        ),
        ("", "DELETE FROM wallet_card WHERE customer = {from}"),
        (
            "addresses",
            """
            UPDATE address SET customer = {into},
                is_default = CASE WHEN EXISTS (SELECT 1 FROM address a WHERE a.customer = {into} AND a.is_default = TRUE) THEN FALSE ELSE is_default END
            WHERE customer = {from} AND NOT EXISTS (SELECT 1 FROM address a WHERE a.customer = {into} AND a.id = address.id)
            """
        ),
        ("", "DELETE FROM address WHERE customer = {from}"),
        (
            "",
            """
            UPDATE provider_customer SET customer = {into}
            WHERE customer = {from} AND NOT EXISTS (SELECT 1 FROM provider_customer p WHERE p.customer = {into} AND p.account = provider_customer.account)
            """
        ),
        ("", "DELETE FROM provider_customer WHERE customer = {from}"),
        ("API tokens", "UPDATE api_token SET owner = {into} WHERE owner = {from} AND scope = 'shop'"),
        ("ways in", "UPDATE account_way_in SET account = {into} WHERE account = {from}"),
        ("sessions", "UPDATE account_session SET account = {into} WHERE account = {from} AND ended_at IS NULL"),
        // The kept account keeps its name and verified email; it takes the other's only where it has none.
        (
            "",
            """
            UPDATE account SET name = COALESCE(name, (SELECT a.name FROM account a WHERE a.customer = {from})),
                email = CASE WHEN email_verified_at IS NULL THEN COALESCE((SELECT a.email FROM account a WHERE a.customer = {from} AND a.email_verified_at IS NOT NULL), email) ELSE email END,
                email_verified_at = COALESCE(email_verified_at, (SELECT a.email_verified_at FROM account a WHERE a.customer = {from}))
            WHERE customer = {into}
            """
        ),
        ("", "DELETE FROM account WHERE customer = {from}"),
    ]

    /// `sql` with `{from}` and `{into}` written as the database's placeholders.
    public static func bound(_ sql: String, from: String, into: String) -> String {
        sql.replacingOccurrences(of: "{from}", with: from).replacingOccurrences(of: "{into}", with: into)
    }
}
