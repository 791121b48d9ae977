import Foundation
import LiveObjects
import PseudoTerminal
import Synchronization

/// How to start the shop for one session; the server adds `TERM` and the customer identity.
public struct SessionCommand: Sendable {
    public var executable: String
    public var arguments: [String]
    public var environment: [String: String]
    /// The largest pty a session gets: a client asking for more (on the first request or in a window
    /// change) gets this, so no client chooses how much memory its session lays out and allocates.
    public var largestTerminal: TerminalSize
    /// What the keys of `adminFingerprints` get instead of the shop: the merchant console.
    public var adminArguments: [String]
    /// The OpenSSH SHA-256 fingerprints of the keys `serve --admin-keys` names; every copy of the command shares them,
    /// so `updateAdminFingerprints` (SIGHUP) reaches the server that holds one.
    public var adminFingerprints: Set<String> { admins.fingerprints.withLock { $0 } }
    private let admins: AdminFingerprints
    /// Where the operator's OpenSSH front is (`ssh shop@shop.example`), for guests told how to get an account.
    public var openSSHFront: String?
    /// Forks each session from this pre-started host; without one, each session starts `executable` anew.
    public var host: SessionHostClient?

    public init(
        executable: String, arguments: [String], environment: [String: String], largestTerminal: TerminalSize,
        adminArguments: [String] = [], adminFingerprints: Set<String> = [], openSSHFront: String? = nil, host: SessionHostClient? = nil
    ) {
        self.openSSHFront = openSSHFront
        self.host = host
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.largestTerminal = largestTerminal
        self.adminArguments = adminArguments
        self.admins = AdminFingerprints(adminFingerprints)
    }

    /// The merchant console's keys from now on: a session already open keeps what it was given.
    public func updateAdminFingerprints(_ fingerprints: Set<String>) {
        admins.fingerprints.withLock { $0 = fingerprints }
    }

    /// The command line for the key with `fingerprint`: the merchant console for an admin key, else the shop.
    public func arguments(forKey fingerprint: String) -> (arguments: [String], isAdmin: Bool) {
        adminFingerprints.contains(fingerprint) && !adminArguments.isEmpty ? (adminArguments, true) : (arguments, false)
    }

    /// The command line for a session, its customer added to `environment`, and the customer as the log names it: a
    /// guest gets the shop under a new one-time id, a key the shop (or, for an admin key, the console) as that key.
    public func launch(guest: Bool, fingerprint: String, environment: inout [String: String]) -> (arguments: [String], customer: String) {
        if guest {
            let id = Self.newGuestID()
            environment[Self.guestVariable] = id
            environment[Self.fingerprintVariable] = nil
            return (arguments, "guest ssh-guest:\(id)")
        }
        environment[Self.fingerprintVariable] = fingerprint
        environment[Self.guestVariable] = nil
        let (chosen, isAdmin) = arguments(forKey: fingerprint)
        return (chosen, isAdmin ? "merchant console for admin key ssh:\(fingerprint)" : "customer ssh:\(fingerprint)")
    }

    /// The command line for a browser visitor, a guest under a new one-time id who may sign in with Sandbox ID
    /// inside the shop, and the customer as the log names it.
    /// With `account` (the page's cookie holds a session of it), the shop opens signed in to that account.
    public func launchBrowserGuest(
        environment: inout [String: String], account: String? = nil, session: String? = nil
    ) -> (arguments: [String], customer: String) {
        let id = Self.newGuestID()
        environment[Self.browserGuestVariable] = id
        environment[Self.browserAccountVariable] = account
        environment[Self.browserSessionVariable] = account == nil ? nil : session
        environment[Self.guestVariable] = nil
        environment[Self.fingerprintVariable] = nil
        return (arguments, account.map { "browser account \($0)" } ?? "browser guest web-guest:\(id)")
    }

    /// Starts a session's program on a new pty of `size`: a fork of the host, or `executable` anew.
    public func start(arguments: [String], environment: [String: String], size: TerminalSize) async throws -> PseudoTerminalProcess {
        guard let host else {
            return try PseudoTerminalProcess.spawn(executable: executable, arguments: arguments, environment: environment, size: size)
        }
        return try await PseudoTerminalProcess.spawn(arguments: arguments, environment: environment, size: size, host: host)
    }

    /// `requested` within `largestTerminal`; a side of 0 (a client without a terminal) becomes 80x24's. Its pixels
    /// stay in proportion to its cells (a cell's size is what they tell), bounded first as a pty holds them.
    public func bounded(_ requested: TerminalSize) -> TerminalSize {
        let columns = min(requested.columns > 0 ? requested.columns : 80, largestTerminal.columns)
        let rows = min(requested.rows > 0 ? requested.rows : 24, largestTerminal.rows)
        let pixels = (width: min(max(requested.pixelWidth, 0), 65_535), height: min(max(requested.pixelHeight, 0), 65_535))
        return TerminalSize(
            columns: columns, rows: rows,
            pixelWidth: requested.columns > 0 ? pixels.width * columns / requested.columns : 0,
            pixelHeight: requested.rows > 0 ? pixels.height * rows / requested.rows : 0)
    }

    /// Sets the session's locale to C.UTF-8, which exists on every glibc host; a client's own may not.
    public static func setLocale(_ environment: inout [String: String]) {
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = "C.UTF-8"
    }

    /// The environment variable that carries the customer's key fingerprint to the session process.
    public static let fingerprintVariable = "STOREFRONT_SSH_KEY_FINGERPRINT"

    /// The environment variable that marks a session as a guest's (no key), with the guest's one-time id.
    public static let guestVariable = "STOREFRONT_SSH_GUEST"

    /// The environment variable that marks a session as a browser visitor's, with the visitor's one-time id.
    public static let browserGuestVariable = "STOREFRONT_WEB_GUEST"
    /// Asks a session to mark each frame's start and end with synchronized output's marks (DEC mode 2026), by which
    /// the browser front finds a session's first frame; the terminal module reads the same name.
    public static let synchronizedOutputVariable = "STOREFRONT_SYNCHRONIZED_OUTPUT"
    /// Asks a session started with its page to say, once, when its first screen is whole, so the page goes with it
    /// then; the terminal module reads the same name.
    public static let firstScreenMarkerVariable = "STOREFRONT_FIRST_SCREEN_MARKER"

    /// The environment variable that carries the account a browser visitor's cookie holds to their session.
    public static let browserAccountVariable = "STOREFRONT_WEB_ACCOUNT"

    /// The environment variable that carries the id (`ses_…`, never the secret) of the sign-in that cookie holds, which
    /// the tokens the tab makes end with.
    public static let browserSessionVariable = "STOREFRONT_WEB_SESSION"

    /// The environment variable by which `web` says its page signs visitors in (by an emailed code or a provider), above
    /// the shop: a guest's shop points there. Its one value is "on".
    public static let pageSignInVariable = "STOREFRONT_WEB_PAGE_SIGN_IN"

    /// The environment variable by which `web` vouches that its page is reachable from this machine only, so a
    /// browser visitor may be offered Sandbox ID (which shows its code on the screen); absent, visitors stay guests.
    public static let sandboxSignInVariable = "STOREFRONT_SANDBOX_SIGN_IN"
    /// The one value of `sandboxSignInVariable` that offers it.
    public static let localSandboxSignIn = "loopback-only"

    /// A guest's one-time id: 16 hex digits, new for each session.
    public static func newGuestID() -> String {
        (0..<2).map { _ in String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(to: 8) }.joined()
    }

    /// What a guest reads on their terminal as the session starts, and again once the shop's screen is gone: why they
    /// are a guest and how to get an account.
    public var guestWelcome: String {
        var lines = [
            "storefront: you are shopping as a guest, and nothing is kept after you leave.",
            "storefront: for an account of your own, connect with an Ed25519 or ECDSA key (ssh-keygen -t ed25519); this server cannot use RSA keys.",
        ]
        if let openSSHFront { lines.append("storefront: RSA keys and every other client work through OpenSSH: \(openSSHFront)") }
        return lines.joined(separator: "\r\n")
    }

    /// Whether `text` is a guest id `newGuestID` makes.
    public static func isGuestID(_ text: String) -> Bool {
        text.count == 16 && text.allSatisfy(\.isHexDigit)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// The admin keys' fingerprints, shared by every copy of one session command.
final class AdminFingerprints: Sendable {
    let fingerprints: Mutex<Set<String>>
    init(_ fingerprints: Set<String>) { self.fingerprints = Mutex(fingerprints) }
}

extension AdminFingerprints: LiveObject {}
