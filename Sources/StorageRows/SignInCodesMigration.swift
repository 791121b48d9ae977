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

    /// What a check comes to, the same on both databases, from the code row as it stands (nil: none), and whether it
    /// counts as a try.
    public static func verdict(
        storedHash: String?, expiresAt: Double?, tries: Int, usedAt: Double?, typedHash: String, at date: Double, limits: Int
    ) -> (check: CodeCheck, countsTry: Bool) {
        guard let storedHash, let expiresAt else { return (.noCode, false) }
        if usedAt != nil || date >= expiresAt { return (.expired, false) }
        if tries >= limits { return (.tooManyTries, false) }
        // Both sides are hex digests of one length: comparing every byte leaks no place where they differ.
        let same = storedHash.utf8.count == typedHash.utf8.count && zip(storedHash.utf8, typedHash.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
        return same ? (.accepted, true) : (.wrong(triesLeft: max(0, limits - tries - 1)), true)
    }
}
