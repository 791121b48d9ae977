import Foundation

/// Where a login lives: a browser's cookie, or a terminal's credential file.
public enum LoginKind: String, Hashable, Sendable, CaseIterable {
    case browser, terminal
}

/// A login: an account signed in on one browser or terminal until it ends, as the shop keeps it: never its secret,
/// only the secret's SHA-256.
public struct LoginRecord: Hashable, Sendable {
    /// The login's public id (`ses_` and 16 hex digits, as first shipped), for listing and ending it.
    public var id: String
    public var account: String
    public var kind: LoginKind
    /// How it was signed in ("email code", "sandbox id", an issuer), shown on the account screen.
    public var label: String
    public var createdAt: Date
    public var lastUsedAt: Date
    /// Each use moves it to `lastUsedAt` plus the sliding lifetime.
    public var expiresAt: Date

    public init(id: String, account: String, kind: LoginKind, label: String, createdAt: Date, lastUsedAt: Date, expiresAt: Date) {
        self.id = id
        self.account = account
        self.kind = kind
        self.label = label
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }
}

/// What a presented login secret came to.
public enum LoginCheck: Hashable, Sendable {
    /// It holds; its expiry moved on.
    case valid(LoginRecord)
    /// Unused for longer than its lifetime.
    case expired
    /// Signed out, ended from the account screen, or ended everywhere.
    case ended
    /// No login has this secret.
    case unknown

    /// Why a login that does not hold is signed out, in the shopper's words; nil when it holds.
    public var signedOutReason: String? {
        switch self {
        case .valid: nil
        case .expired: "Your sign-in expired after 30 days unused, so you were signed out."
        case .ended: "Your sign-in was ended (signed out, or signed out everywhere), so you were signed out."
        case .unknown: "The shop does not know your sign-in, so you were signed out."
        }
    }
}

/// The accounts' logins, shared by every host on the shop's database.
public protocol LoginRepository: Sendable {
    func start(_ record: LoginRecord, secretHash: String) async throws
    /// The login filed under `secretHash` at `date`; a valid one is marked used and lives `lifetime` from now.
    func check(secretHash: String, at date: Date, lifetime: TimeInterval) async throws -> LoginCheck
    /// Ends the login filed under `secretHash` (a sign-out); nothing when it had ended.
    func end(secretHash: String, at date: Date) async throws
    /// Ends login `id` when it is `account`'s; false when it is not one of its live logins.
    func end(id: String, account: String, at date: Date) async throws -> Bool
    /// Ends every live login of `account`; returns how many.
    func endAll(account: String, at date: Date) async throws -> Int
    /// `account`'s live logins at `date`, newest use first.
    func logins(account: String, at date: Date) async throws -> [LoginRecord]
    /// Of logins `ids`, those live at `date` (neither ended nor expired), each with the account it holds now; none is
    /// marked used. What an open tab and a tab's token are checked against while they last.
    func liveAccounts(ids: [String], at date: Date) async throws -> [String: String]
}

/// What the account screen reads and changes of an account's ways in: its keys and providers, and its logins.
public struct WaysInAccess: Sendable {
    public var directory: any AccountDirectory
    public var logins: any LoginRepository

    public init(directory: any AccountDirectory, logins: any LoginRepository) {
        self.directory = directory
        self.logins = logins
    }
}

/// An account's ways in as the account screen lists them.
public struct AccountWaysIn: Equatable, Sendable {
    public var waysIn: [WayInRecord]
    public var logins: [LoginRecord]

    public init(waysIn: [WayInRecord], logins: [LoginRecord]) {
        self.waysIn = waysIn
        self.logins = logins
    }
}

/// The `state` of each sign-in sent to an OpenID Connect provider, as a hash, so a callback is taken once only.
public protocol OpenIDStateRepository: Sendable {
    func file(stateHash: String, provider: String, at date: Date) async throws
    /// True, once, for a state filed for `provider` within `lifetime` before `date`: it is used up.
    func take(stateHash: String, provider: String, at date: Date, lifetime: TimeInterval) async throws -> Bool
}
