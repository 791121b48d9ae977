import Foundation

/// Where a signed-in session lives: a browser's cookie, or a terminal's credential file.
public enum AccountSessionKind: String, Hashable, Sendable, CaseIterable {
    case browser, terminal
}

/// A sign-in kept for an account, as the shop keeps it: never its secret, only the secret's SHA-256.
public struct AccountSessionRecord: Hashable, Sendable {
    /// The session's public id (`ses_` and 16 hex digits), for listing and ending it.
    public var id: String
    public var account: String
    public var kind: AccountSessionKind
    /// How it was signed in ("email code", "sandbox id", an issuer), shown on the account screen.
    public var label: String
    public var createdAt: Date
    public var lastUsedAt: Date
    /// Each use moves it to `lastUsedAt` plus the sliding lifetime.
    public var expiresAt: Date

    public init(id: String, account: String, kind: AccountSessionKind, label: String, createdAt: Date, lastUsedAt: Date, expiresAt: Date) {
        self.id = id
        self.account = account
        self.kind = kind
        self.label = label
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }
}

/// What a presented session secret came to.
public enum AccountSessionCheck: Hashable, Sendable {
    /// It holds; its expiry moved on.
    case valid(AccountSessionRecord)
    /// Unused for longer than its lifetime.
    case expired
    /// Signed out, ended from the account screen, or ended everywhere.
    case ended
    /// No session has this secret.
    case unknown

    /// Why a session that does not hold is signed out, in the shopper's words; nil when it holds.
    public var signedOutReason: String? {
        switch self {
        case .valid: nil
        case .expired: "Your sign-in expired after 30 days unused, so you were signed out."
        case .ended: "Your sign-in was ended (signed out, or signed out everywhere), so you were signed out."
        case .unknown: "The shop does not know your sign-in, so you were signed out."
        }
    }
}

/// The accounts' signed-in sessions, shared by every host on the shop's database.
public protocol AccountSessionRepository: Sendable {
    func start(_ record: AccountSessionRecord, secretHash: String) async throws
    /// The session filed under `secretHash` at `date`; a valid one is marked used and lives `lifetime` from now.
    func check(secretHash: String, at date: Date, lifetime: TimeInterval) async throws -> AccountSessionCheck
    /// Ends the session filed under `secretHash` (a sign-out); nothing when it had ended.
    func end(secretHash: String, at date: Date) async throws
    /// Ends session `id` when it is `account`'s; false when it is not one of its live sessions.
    func end(id: String, account: String, at date: Date) async throws -> Bool
    /// Ends every live session of `account`; returns how many.
    func endAll(account: String, at date: Date) async throws -> Int
    /// `account`'s live sessions at `date`, newest use first.
    func sessions(account: String, at date: Date) async throws -> [AccountSessionRecord]
    /// Of sessions `ids`, those live at `date` (neither ended nor expired), each with the account it holds now; none is
    /// marked used. What an open tab and a tab's token are checked against while they last.
    func liveAccounts(ids: [String], at date: Date) async throws -> [String: String]
}

/// What the account screen reads and changes of an account's ways in: its keys and providers, and its sessions.
public struct WaysInAccess: Sendable {
    public var directory: any AccountDirectory
    public var sessions: any AccountSessionRepository

    public init(directory: any AccountDirectory, sessions: any AccountSessionRepository) {
        self.directory = directory
        self.sessions = sessions
    }
}

/// An account's ways in as the account screen lists them.
public struct AccountWaysIn: Equatable, Sendable {
    public var waysIn: [WayInRecord]
    public var sessions: [AccountSessionRecord]

    public init(waysIn: [WayInRecord], sessions: [AccountSessionRecord]) {
        self.waysIn = waysIn
        self.sessions = sessions
    }
}

/// The `state` of each sign-in sent to an OpenID Connect provider, as a hash, so a callback is taken once only.
public protocol OpenIDStateRepository: Sendable {
    func file(stateHash: String, provider: String, at date: Date) async throws
    /// True, once, for a state filed for `provider` within `lifetime` before `date`: it is used up.
    func take(stateHash: String, provider: String, at date: Date, lifetime: TimeInterval) async throws -> Bool
}
