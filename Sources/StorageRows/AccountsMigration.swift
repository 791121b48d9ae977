/// Schema step v22, the same statements on SQLite and PostgreSQL: accounts apart from their ways in. Every customer the
/// shop kept anything for under a way in's id (an SSH key, a Sandbox ID user, a local user) becomes an account under
/// that same id with that way in, so carts, wallets, addresses, orders and tokens stay where they are.
public enum AccountsMigration {
    public static let schema: [String] = [
        "ALTER TABLE account ADD COLUMN email_verified_at DOUBLE PRECISION",
        "ALTER TABLE account ADD COLUMN created_at DOUBLE PRECISION NOT NULL DEFAULT 0",
        """
        CREATE TABLE account_way_in (
            kind TEXT NOT NULL,
            way_key TEXT NOT NULL,
            account TEXT NOT NULL,
            added_at DOUBLE PRECISION NOT NULL,
            last_used_at DOUBLE PRECISION,
            -- Taken off its account: refused until a sign-in by email links it again.
            removed_at DOUBLE PRECISION,
            PRIMARY KEY (kind, way_key)
        )
        """,
        "CREATE INDEX account_way_in_account ON account_way_in (account)",
    ]

    /// The customer ids of a way in, with the kind each prefix names and its length.
    static let prefixes = [("ssh:", "ssh-key"), ("sandbox-id:", "sandbox-id"), ("local:", "local")]

    /// Every customer id the shop has kept something under.
    static let customers = """
        SELECT customer FROM orders UNION SELECT customer FROM cart_line UNION SELECT customer FROM address
        UNION SELECT customer FROM wallet_card UNION SELECT owner FROM api_token UNION SELECT customer FROM account
        UNION SELECT 'sandbox-id:' || id FROM sandbox_id_user
        """

    /// The accounts and their ways in, for the customers kept before v22; run again, it adds nothing.
    public static let backfill: [String] = prefixes.flatMap { prefix, kind in
        let match = "substr(seen.customer, 1, \(prefix.count)) = '\(prefix)' AND length(seen.customer) > \(prefix.count)"
        return [
            """
            INSERT INTO account (customer)
            SELECT DISTINCT seen.customer FROM (\(customers)) AS seen
            WHERE \(match) AND NOT EXISTS (SELECT 1 FROM account a WHERE a.customer = seen.customer)
            """,
            """
            INSERT INTO account_way_in (kind, way_key, account, added_at)
            SELECT DISTINCT '\(kind)', substr(seen.customer, \(prefix.count + 1)), seen.customer, 0 FROM (\(customers)) AS seen
            WHERE \(match)
                AND NOT EXISTS (SELECT 1 FROM account_way_in w WHERE w.kind = '\(kind)' AND w.way_key = substr(seen.customer, \(prefix.count + 1)))
            """,
        ]
    }

    /// A Sandbox ID user's email is the one their provider verified.
    public static let sandboxEmails = """
        UPDATE account SET email = (SELECT u.email FROM sandbox_id_user u WHERE 'sandbox-id:' || u.id = account.customer)
        WHERE email IS NULL AND substr(customer, 1, 11) = 'sandbox-id:'
        """
}
