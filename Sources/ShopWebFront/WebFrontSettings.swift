/// What `storefront web` serves and what it allows, as configured.
public struct WebFrontSettings: Sendable {
    public var host: String
    public var port: Int
    /// The origins whose pages may open a session (`https://shop.example`); a socket from any other page gets 403.
    /// Empty means the loopback origins of the bound port, for trying it out on one machine.
    public var publicOrigins: [WebOrigin]
    /// Takes the visitor's address from the last `X-Forwarded-For` entry, which the reverse proxy in front wrote.
    public var trustForwardedFor: Bool
    /// The page's title.
    public var shopName: String
    public var limits: WebFrontLimits

    public init(
        host: String, port: Int, publicOrigins: [WebOrigin] = [], trustForwardedFor: Bool = false, shopName: String,
        limits: WebFrontLimits = WebFrontLimits()
    ) {
        self.host = host
        self.port = port
        self.publicOrigins = publicOrigins
        self.trustForwardedFor = trustForwardedFor
        self.shopName = shopName
        self.limits = limits
    }

    /// Whether visitors may sign in with Sandbox ID, which shows its one-time code on the screen: only on a page
    /// nobody else can reach (loopback, no public origin), or anyone could open any shopper's account by their email.
    public var offersSandboxSignIn: Bool {
        publicOrigins.isEmpty && Self.isLoopback(host)
    }

    /// Whether `host` names this machine's loopback interface.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// How much the browser front gives, to everyone and to one visitor.
public struct WebFrontLimits: Sendable, Equatable {
    /// Browser sessions (shop processes) open at once.
    public var maxSessions = 32
    /// Sessions one client address may hold at once.
    public var sessionsPerAddress = 2
    /// Sockets one client address may open in any minute.
    public var connectionsPerMinute = 30
    /// The largest message a page may send; a larger one closes the socket (1009) unread.
    public var maxMessageBytes = 64 * 1024
    /// Input one session may send: this many bytes a second, every message counting at least `messageCost` bytes.
    public var inputBytesPerSecond = 16 * 1024
    /// What a session may send at once before the rate applies: a paste, a burst of mouse reports.
    public var inputBurstBytes = 64 * 1024
    /// What each message costs at least, so a flood of tiny messages is a flood too.
    public var messageCost = 64
    /// A session with no input for this long is closed.
    public var idleTimeout = Duration.seconds(15 * 60)
    /// A session is closed after this long, however busy.
    public var maxSessionLength = Duration.seconds(2 * 60 * 60)
    /// How long a page has to upgrade, and how long an HTTP connection may sit without a request.
    public var connectionIdleTimeout = Duration.seconds(30)
    /// HTTP connections held at once; more wait in the listen queue.
    public var maxConnections = 512
    /// HTTP connections one client address may hold at once; more are closed as they come. Behind a proxy
    /// (`trustForwardedFor`) every connection comes from the proxy, so only `maxConnections` holds.
    public var connectionsPerAddress = 16
    /// How long a stop waits for sessions to end before killing them.
    public var drainTimeout = Duration.seconds(10)
    /// How long a returning tab's page waits for the first frame of the session started with it; zero starts none.
    public var firstFrameWait = Duration.milliseconds(150)
    /// After that frame, how long the page waits for the rest of its first screen (the shop's word that it is whole,
    /// its pictures in), within `firstFrameWait`.
    public var firstScreenWait = Duration.milliseconds(30)

    public init() {}
}

/// A web origin as browsers send it in `Origin`: scheme, host and a port that is not the scheme's default.
public struct WebOrigin: Sendable, Hashable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int?

    /// Parses `https://shop.example` or `http://127.0.0.1:8080`; nil for anything with a path, query, user or other
    /// scheme, so a typo is refused at start instead of silently matching nothing.
    public init?(_ text: String) {
        let lowered = text.lowercased()
        guard let separator = lowered.range(of: "://") else { return nil }
        let scheme = String(lowered[..<separator.lowerBound])
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = String(lowered[separator.upperBound...])
        if rest.hasSuffix("/") { rest.removeLast() }
        guard !rest.isEmpty, !rest.contains(where: { "/?#@ \\".contains($0) }) else { return nil }
        var host = rest
        var port: Int?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = String(rest[...close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            guard let number = Int(rest[rest.index(after: colon)...]) else { return nil }
            host = String(rest[..<colon])
            port = number
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-[]:".contains($0) }) else { return nil }
        if let given = port {
            guard (1...65_535).contains(given) else { return nil }
            if given == (scheme == "https" ? 443 : 80) { port = nil }
        }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    public var description: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")" }

    /// The origins a browser on this machine uses for a server on loopback `port`.
    public static func loopback(port: Int) -> [WebOrigin] {
        ["127.0.0.1", "localhost", "[::1]"].compactMap { WebOrigin("http://\($0):\(port)") }
    }
}

/// The input a session may still send: a token bucket, filled at a steady rate up to the burst.
/// Times are passed in, so tests choose them.
struct InputAllowance {
    private var available: Double
    private var last: ContinuousClock.Instant
    private let rate: Double
    private let burst: Double
    private let messageCost: Int

    init(limits: WebFrontLimits, now: ContinuousClock.Instant) {
        rate = Double(limits.inputBytesPerSecond)
        burst = Double(limits.inputBurstBytes)
        messageCost = limits.messageCost
        available = burst
        last = now
    }

    /// Takes what a message of `bytes` costs; false when the session is sending faster than it may.
    mutating func take(_ bytes: Int, at now: ContinuousClock.Instant) -> Bool {
        let elapsed = now - last
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        available = min(burst, available + max(0, seconds) * rate)
        last = now
        let cost = Double(max(bytes, messageCost))
        guard cost <= available else { return false }
        available -= cost
        return true
    }
}

extension WebFrontSettings {
    /// What is out of bounds, if anything, named as `web`'s options: checked before any number is used.
    public var problem: String? {
        if !(1...10_000).contains(limits.maxSessions) { return "--max-sessions must be between 1 and 10000, not \(limits.maxSessions)" }
        if !(1...1_000).contains(limits.sessionsPerAddress) {
            return "--sessions-per-address must be between 1 and 1000, not \(limits.sessionsPerAddress)"
        }
        if limits.connectionsPerMinute < 1 { return "--connections-per-minute must be at least 1" }
        if !(1...10_000).contains(limits.connectionsPerAddress) {
            return "--connections-per-address must be between 1 and 10000, not \(limits.connectionsPerAddress)"
        }
        if publicOrigins.isEmpty, !Self.isLoopback(host) {
            return
                "--public-origin is needed when listening on \(host): the address visitors' browsers show, such as https://shop.example (docs/web.md)"
        }
        return nil
    }
}
