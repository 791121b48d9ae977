import ShopPorts

/// What a typed code comes to, decided the same way on both databases from the rows as each reads them.
public enum SignInCodeVerdict {
    /// One code of the email for the purpose, as stored.
    public struct Code: Sendable {
        public var hash: String
        public var expiresAt: Double
        public var usedAt: Double?

        public init(hash: String, expiresAt: Double, usedAt: Double?) {
            self.hash = hash
            self.expiresAt = expiresAt
            self.usedAt = usedAt
        }
    }

    /// What a check comes to, from the email's codes for the purpose and its wrong guesses in the last hour and day,
    /// and whether it is a wrong guess to count.
    public static func of(
        codes: [Code], wrongInHour: Int, wrongInDay: Int, typedHash: String, at date: Double, limits: CodeLimits
    ) -> (check: CodeCheck, countsWrong: Bool) {
        guard !codes.isEmpty else { return (.noCode, false) }
        let live = codes.filter { $0.usedAt == nil && date < $0.expiresAt }
        guard !live.isEmpty else { return (.expired, false) }
        let left = min(limits.wrongGuessesPerHour - wrongInHour, limits.wrongGuessesPerDay - wrongInDay)
        guard left > 0 else { return (.tooManyTries, false) }
        // Every live code is compared, whole: neither which one matched nor where one differs shows in the time taken.
        let matches = live.reduce(false) { $1.hash.utf8.count == typedHash.utf8.count && same($1.hash, typedHash) || $0 }
        return matches ? (.accepted, false) : (.wrong(triesLeft: left - 1), true)
    }

    /// Both are hex digests of one length: every byte is compared.
    private static func same(_ a: String, _ b: String) -> Bool {
        zip(a.utf8, b.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
