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

    /// Schema step v34: several codes of one email may be in flight (a stranger's request no longer voids the one the
    /// owner is typing), and wrong guesses are counted per email across its codes, not per code.
    public static let guessesAcrossCodes: [String] = [
        """
        CREATE TABLE sign_in_code_pending (
            email TEXT NOT NULL,
            purpose TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL,
            used_at DOUBLE PRECISION,
            PRIMARY KEY (email, purpose, code_hash)
        )
        """,
        "INSERT INTO sign_in_code_pending (email, purpose, code_hash, expires_at, used_at) SELECT email, purpose, code_hash, expires_at, used_at FROM sign_in_code",
        "DROP TABLE sign_in_code",
        "ALTER TABLE sign_in_code_pending RENAME TO sign_in_code",
        """
        CREATE TABLE sign_in_code_guess (
            id TEXT PRIMARY KEY,
            email TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL
        )
        """,
        "CREATE INDEX sign_in_code_guess_email ON sign_in_code_guess (email, at)",
    ]
}
