import ShopPorts

/// What a typed code comes to, decided the same way on both databases from the code's row as each reads it.
public enum SignInCodeVerdict {
    /// What a check comes to, the same on both databases, from the code row as it stands (nil: none), and whether it
    /// counts as a try.
    public static func of(
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
