import Foundation

/// What a code sent by email is for.
public enum CodePurpose: String, Hashable, Sendable, CaseIterable {
    case signIn = "sign-in"
    case linkKey = "link-key"
    case verifyEmail = "verify-email"
}

/// How long a code lasts, how many wrong guesses an email allows across all its codes, and how many codes an email
/// and a client may ask for in an hour.
public struct CodeLimits: Hashable, Sendable {
    public var lifetime: TimeInterval
    /// Wrong guesses an email allows in an hour, whichever of its codes they were aimed at: a new code does not reset it.
    public var wrongGuessesPerHour: Int
    /// Wrong guesses an email allows in a day, so an hour's budget spent every hour does not add up to a brute force.
    public var wrongGuessesPerDay: Int
    public var perEmailPerHour: Int
    public var perClientPerHour: Int

    public init(
        lifetime: TimeInterval = 600, wrongGuessesPerHour: Int = 5, wrongGuessesPerDay: Int = 20, perEmailPerHour: Int = 5,
        perClientPerHour: Int = 20
    ) {
        self.lifetime = lifetime
        self.wrongGuessesPerHour = wrongGuessesPerHour
        self.wrongGuessesPerDay = wrongGuessesPerDay
        self.perEmailPerHour = perEmailPerHour
        self.perClientPerHour = perClientPerHour
    }
}

/// What a typed code came to.
public enum CodeCheck: Hashable, Sendable {
    /// The code was right: it is used up.
    case accepted
    case wrong(triesLeft: Int)
    /// Its 10 minutes are over, or it was used already.
    case expired
    /// The email's wrong guesses are used up for now, whichever code is typed.
    case tooManyTries
    /// No code was sent to this email for this purpose.
    case noCode

    /// The line a shopper reads.
    public var message: String {
        switch self {
        case .accepted: "Signed in."
        case .wrong(let left): "That code is not the one sent. \(left) \(left == 1 ? "try" : "tries") left."
        case .expired: "That code has expired or was used. Ask for a new one."
        case .tooManyTries: "Too many wrong codes for this email. Wait an hour, then ask for a new one."
        case .noCode: "No code was sent to that email. Ask for one."
        }
    }
}

/// The codes sent by email, kept only as keyed hashes: filed within limits, checked against the email's budget of wrong
/// guesses, used once.
public protocol SignInCodeRepository: Sendable {
    /// Files `hash` as a code of `email` for `purpose` beside any still in flight (someone else asking must not void
    /// the code its owner is typing), unless the email or `client` (an address, a key) asked for as many codes as
    /// `limits` allow in the hour before `date`; false when a limit held.
    func file(_ hash: String, email: String, purpose: String, client: String, at date: Date, limits: CodeLimits) async throws -> Bool
    /// Checks `hash` against the codes of `email` for `purpose` in flight at `date`; a wrong one counts against the
    /// email's budget, an accepted one uses up every code of that purpose.
    func check(_ hash: String, email: String, purpose: String, at date: Date, limits: CodeLimits) async throws -> CodeCheck
}
