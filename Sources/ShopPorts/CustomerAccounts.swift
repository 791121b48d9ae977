import Foundation

/// One way a person reaches their account: an SSH key, an OpenID Connect subject, a Sandbox ID user, or the local user
/// of a terminal. Stored as a kind and a key.
public enum WayIn: Hashable, Sendable {
    case sshKey(fingerprint: String)
    case openID(issuer: String, subject: String)
    case sandboxID(userID: String)
    case localUser(name: String)

    /// `ssh-key`, `oidc`, `sandbox-id`, `local`.
    public var kind: String {
        switch self {
        case .sshKey: "ssh-key"
        case .openID: "oidc"
        case .sandboxID: "sandbox-id"
        case .localUser: "local"
        }
    }

    /// What names it within its kind: the fingerprint, "issuer subject", the user id, the user name.
    public var key: String {
        switch self {
        case .sshKey(let fingerprint): fingerprint
        case .openID(let issuer, let subject): issuer + " " + subject
        case .sandboxID(let userID): userID
        case .localUser(let name): name
        }
    }

    /// The customer id the shop kept this way in's data under before accounts: a new account made by it takes this id,
    /// so what it had stays its own.
    public var customerID: String {
        switch self {
        case .sshKey(let fingerprint): "ssh:" + fingerprint
        case .openID(let issuer, let subject): "oidc:" + issuer + " " + subject
        case .sandboxID(let userID): "sandbox-id:" + userID
        case .localUser(let name): "local:" + name
        }
    }

    public init?(kind: String, key: String) {
        switch kind {
        case "ssh-key": self = .sshKey(fingerprint: key)
        case "sandbox-id": self = .sandboxID(userID: key)
        case "local": self = .localUser(name: key)
        case "oidc":
            let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            self = .openID(issuer: parts[0], subject: parts[1])
        default: return nil
        }
    }
}

/// A way in as an account keeps it: when it was added and last used.
public struct WayInRecord: Hashable, Sendable {
    public var wayIn: WayIn
    public var addedAt: Date
    public var lastUsedAt: Date?

    public init(wayIn: WayIn, addedAt: Date, lastUsedAt: Date?) {
        self.wayIn = wayIn
        self.addedAt = addedAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A customer: the id their carts, wallets, orders and tokens belong to, their name and verified email, and the ways in
/// that reach it.
public struct CustomerAccount: Hashable, Sendable {
    public var id: String
    public var name: String?
    public var email: String?
    /// When the email was verified by a code; nil while it is not.
    public var emailVerifiedAt: Date?
    public var waysIn: [WayInRecord]

    public init(id: String, name: String?, email: String?, emailVerifiedAt: Date?, waysIn: [WayInRecord]) {
        self.id = id
        self.name = name
        self.email = email
        self.emailVerifiedAt = emailVerifiedAt
        self.waysIn = waysIn
    }
}

/// Why a way in was not linked or removed; nothing changed.
public enum AccountChangeError: Error, Hashable, Sendable {
    case noSuchAccount(String)
    /// The way in reaches another account already: joining two accounts is `storefront accounts merge`'s, on purpose.
    case reachesAnotherAccount(String)
    /// An account keeps at least one way in.
    case lastWayIn
    case notLinked
    /// Another account has this verified email.
    case emailTaken
    /// The database could not be reached or refused the change, in its words.
    case storage(String)
}

/// The accounts and the ways in that reach them, on the shop's database.
public protocol AccountDirectory: Sendable {
    /// The account `wayIn` reaches, made with it (under `wayIn.customerID`) the first time; its use is recorded at `date`.
    /// Nil for a way in taken off its account: it is refused until a sign-in by email links it again.
    func account(for wayIn: WayIn, at date: Date) async throws -> CustomerAccount?
    func account(id: String) async throws -> CustomerAccount?
    /// The account whose verified email is `email`, in any case.
    func account(verifiedEmail email: String) async throws -> CustomerAccount?
    /// Adds `wayIn` to the account `accountID` (again, after it was removed).
    func link(_ wayIn: WayIn, to accountID: String, at date: Date) async throws(AccountChangeError)
    /// Moves `wayIn` to the account `accountID` from an account it alone makes up (no other way in, no verified email):
    /// a key seen for the first time joins the account its holder proves by a code. One that reaches a real account is
    /// refused as `.reachesAnotherAccount`: joining two accounts is `storefront accounts merge`'s.
    func move(_ wayIn: WayIn, to accountID: String, at date: Date) async throws(AccountChangeError)
    /// The account whose verified email is `email`, or a new one with id `newID` and that email, verified at `date`.
    func openAccount(verifiedEmail email: String, newID: String, at date: Date) async throws(AccountChangeError) -> CustomerAccount
    /// Takes `wayIn` off the account, which refuses it from then on on every host; its last one stays.
    func remove(_ wayIn: WayIn, from accountID: String, at date: Date) async throws(AccountChangeError)
    /// Records `email` as the account's, verified at `date`.
    func verify(email: String, for accountID: String, at date: Date) async throws(AccountChangeError)
    /// Every account, by id.
    func accounts(offset: Int, limit: Int) async throws -> [CustomerAccount]
    /// Joins account `from` into `into`: its orders, cart, cards, addresses, tokens, ways in and sessions become
    /// `into`'s, and `from` is gone. Returns how many of each moved, by what they are.
    func merge(_ from: String, into: String) async throws(AccountChangeError) -> [(what: String, count: Int)]
}

/// The accounts the operator named merchants (`storefront admins`): their keys open the merchant console.
public protocol AccountAdmins: Sendable {
    func add(_ account: String, at date: Date) async throws
    /// False when the account was not a merchant.
    func remove(_ account: String) async throws -> Bool
    func isAdmin(_ account: String) async throws -> Bool
    /// Every merchant account and when it was named, oldest first.
    func admins() async throws -> [(account: String, addedAt: Date)]
}
