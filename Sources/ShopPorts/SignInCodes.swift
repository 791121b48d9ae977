import Foundation

/// What a code sent by email is for.
public enum CodePurpose: String, Hashable, Sendable, CaseIterable {
    case signIn = "sign-in"
    case linkKey = "link-key"
    case verifyEmail = "verify-email"
}

/// How long a code lasts, how many tries it allows, and how many codes an email and a client may ask for in an hour.
public struct CodeLimits: Hashable, Sendable {
    public var lifetime: TimeInterval
    public var tries: Int
    public var perEmailPerHour: Int
    public var perClientPerHour: Int

    public init(lifetime: TimeInterval = 600, tries: Int = 5, perEmailPerHour: Int = 5, perClientPerHour: Int = 20) {
        self.lifetime = lifetime
        self.tries = tries
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
    /// Its tries are used up: a new code is needed.
    case tooManyTries
    /// No code was sent to this email for this purpose.
    case noCode

    /// The line a shopper reads.
    public var message: String {
        switch self {
        case .accepted: "Signed in."
        case .wrong(let left): "That code is not the one sent. \(left) \(left == 1 ? "try" : "tries") left."
        case .expired: "That code has expired or was used. Ask for a new one."
        case .tooManyTries: "Too many wrong codes. Ask for a new one."
        case .noCode: "No code was sent to that email. Ask for one."
        }
    }
}

/// The codes sent by email, kept only as keyed hashes: filed within limits, checked with a count of tries, used once.
public protocol SignInCodeStore: Sendable {
    /// Files `hash` as the code of `email` for `purpose`, replacing an earlier one, unless the email or `client` (an
    /// address, a key) asked for as many codes as `limits` allow in the hour before `date`; false when a limit held.
    func file(_ hash: String, email: String, purpose: String, client: String, at date: Date, limits: CodeLimits) async throws -> Bool
    /// Counts a try of `hash` against the code of `email` for `purpose` at `date`; an accepted code is used up.
    func check(_ hash: String, email: String, purpose: String, at date: Date, limits: CodeLimits) async throws -> CodeCheck
}
