import ShopPorts

/// Schema step v23, the same statements on SQLite and PostgreSQL: codes sent by email, as keyed hashes only, and the
/// requests for them, counted for the hourly limits.
public enum SignInCodesMigration {
    public static let statements: [String] = [
        """
        CREATE TABLE sign_in_code (
            email TEXT NOT NULL,
            purpose TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL,
            tries INTEGER NOT NULL DEFAULT 0,
            used_at DOUBLE PRECISION,
            PRIMARY KEY (email, purpose)
        )
        """,
        """
        CREATE TABLE sign_in_code_request (
            id TEXT PRIMARY KEY,
            email TEXT NOT NULL,
            client TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL
        )
        """,
        "CREATE INDEX sign_in_code_request_email ON sign_in_code_request (email, at)",
        "CREATE INDEX sign_in_code_request_client ON sign_in_code_request (client, at)",
    ]
}
