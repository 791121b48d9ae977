import LiveObjects
import ShopMetrics
import Synchronization

/// The server's limits, as configured.
public struct ServeLimits: Sendable, Equatable {
    /// Session processes allowed at once.
    public var maxSessions: Int
    /// New connections one source address may open in any 60 seconds.
    public var connectionsPerSourcePerMinute: Int
    /// A session with no input from its client for this long is closed.
    public var idleTimeout: Duration
    /// How long SIGTERM waits for open sessions to end before killing them.
    public var drainTimeout: Duration
    /// What one connection may ask for before it is closed as a flood.
    public var allowance: ConnectionAllowance
    /// Guest sessions (no key) allowed at once, beside `maxSessions` for key holders; 0 turns guests away.
    public var maxGuests: Int
    /// Guest sessions one source address may hold at once.
    public var guestsPerAddress: Int

    public init(
        maxSessions: Int = 64, connectionsPerSourcePerMinute: Int = 30, idleTimeout: Duration = .seconds(15 * 60),
        drainTimeout: Duration = .seconds(10),
        allowance: ConnectionAllowance = .standard, maxGuests: Int = 16, guestsPerAddress: Int = 2
    ) {
        self.maxGuests = maxGuests
        self.guestsPerAddress = guestsPerAddress
        self.maxSessions = maxSessions
        self.connectionsPerSourcePerMinute = connectionsPerSourcePerMinute
        self.idleTimeout = idleTimeout
        self.drainTimeout = drainTimeout
        self.allowance = allowance
    }
}

/// Decides whether a connection or a session may start. Times are passed in, so tests choose them.
public final class AdmissionControl: Sendable {
    /// Why something was turned away, worded for the person at the client.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case tooManyConnections(source: String, limit: Int)
        case full(limit: Int)
        case draining
        /// Guests are turned away (`--max-guests 0`).
        case noGuests
        case guestsFull(limit: Int)
        case tooManyGuests(source: String, limit: Int)

        /// The refusal's kind, as the metrics label it: never the address.
        public var metricReason: String {
            switch self {
            case .tooManyConnections: "connections_per_minute"
            case .full: "full"
            case .draining: "draining"
            case .noGuests: "no_guests"
            case .guestsFull: "guests_full"
            case .tooManyGuests: "guests_per_address"
            }
        }

        public var description: String {
            switch self {
            case .tooManyConnections(_, let limit):
                return "too many connections from your address (\(limit) a minute); try again in a minute"
            case .full(let limit):
                return "the shop is full (\(limit) session\(limit == 1 ? "" : "s")); try again in a few minutes"
            case .draining:
                return "the shop is closing for maintenance; try again in a few minutes"
            case .noGuests:
                return "this shop takes no guests: connect with an SSH key (ssh-keygen -t ed25519)"
            case .guestsFull(let limit):
                return "the shop has room for no more guests (\(limit)); connect with an SSH key to get in, or try again in a few minutes"
            case .tooManyGuests(_, let limit):
                return "your address has \(limit) guest session\(limit == 1 ? "" : "s") open already; connect with an SSH key for more"
            }
        }
    }

    private struct State {
        var limits: ServeLimits
        var recentConnections: [String: [ContinuousClock.Instant]] = [:]
        var lastSweep: ContinuousClock.Instant?
        var sessions = 0
        var guests: [String: Int] = [:]
        var draining = false
    }

    private let state: Mutex<State>
    private static let window = Duration.seconds(60)
    /// The front its sessions are counted under in the metrics (ssh, web).
    private let front: String

    public init(limits: ServeLimits, front: String = "ssh") {
        state = Mutex(State(limits: limits))
        self.front = front
    }

    /// Counts what was decided, by front: a session started or a refusal and its reason; the open sessions after it.
    private func record(_ refusal: Refusal?, open: Int) -> Refusal? {
        if let refusal {
            ShopMetrics.count(ShopMetrics.sessionsRefused, [("front", front), ("reason", refusal.metricReason)])
        } else {
            ShopMetrics.count(ShopMetrics.sessionsStarted, [("front", front)])
            ShopMetrics.gauge(ShopMetrics.sessionsOpen, [("front", front)], Double(open))
        }
        return refusal
    }

    /// The limits now: those configured, or the last `update`.
    public var limits: ServeLimits { state.withLock { $0.limits } }

    /// New limits for what starts from now on (SIGHUP); sessions already open keep going, even past a lower maximum.
    public func update(_ limits: ServeLimits) {
        state.withLock { $0.limits = limits }
    }

    /// Counts a new connection from `source` at `now`; refuses it past the per-minute limit.
    public func admitConnection(from source: String, at now: ContinuousClock.Instant) -> Refusal? {
        let refusal = admitConnectionCounted(from: source, at: now)
        if let refusal { ShopMetrics.count(ShopMetrics.sessionsRefused, [("front", front), ("reason", refusal.metricReason)]) }
        return refusal
    }

    private func admitConnectionCounted(from source: String, at now: ContinuousClock.Instant) -> Refusal? {
        state.withLock { state in
            if state.draining { return .draining }
            // Forget sources that have been quiet for a minute, so the table cannot grow without
            // bound; once a minute, so a crowd of addresses does not make each connection cost O(n).
            if state.lastSweep.map({ now - $0 >= Self.window }) ?? true {
                state.recentConnections = state.recentConnections.compactMapValues { times in
                    let kept = times.filter { now - $0 < Self.window }
                    return kept.isEmpty ? nil : kept
                }
                state.lastSweep = now
            }
            let recent = state.recentConnections[source, default: []].filter { now - $0 < Self.window }
            guard recent.count < state.limits.connectionsPerSourcePerMinute else {
                return .tooManyConnections(source: source, limit: state.limits.connectionsPerSourcePerMinute)
            }
            state.recentConnections[source] = recent + [now]
            return nil
        }
    }

    /// Takes a session slot; the caller must `endSession()` once for every nil returned.
    public func beginSession() -> Refusal? {
        let (refusal, open) = state.withLock { state -> (Refusal?, Int) in
            if state.draining { return (.draining, state.sessions) }
            guard state.sessions < state.limits.maxSessions else { return (.full(limit: state.limits.maxSessions), state.sessions) }
            state.sessions += 1
            return (nil, state.sessions + state.guests.values.reduce(0, +))
        }
        return record(refusal, open: open)
    }

    /// Gives back a slot taken by `beginSession()`.
    public func endSession() {
        let open = state.withLock { state in
            state.sessions = max(0, state.sessions - 1)
            return state.sessions + state.guests.values.reduce(0, +)
        }
        ShopMetrics.gauge(ShopMetrics.sessionsOpen, [("front", front)], Double(open))
    }

    /// Takes a guest slot for `source`, counted apart from the key holders' sessions so guests never crowd them out;
    /// the caller must `endGuestSession(from:)` once for every nil returned.
    public func beginGuestSession(from source: String) -> Refusal? {
        let (refusal, open) = state.withLock { state -> (Refusal?, Int) in
            let guests = state.guests.values.reduce(0, +)
            if state.draining { return (.draining, 0) }
            let limits = state.limits
            guard limits.maxGuests > 0 else { return (.noGuests, 0) }
            guard guests < limits.maxGuests else { return (.guestsFull(limit: limits.maxGuests), 0) }
            guard state.guests[source, default: 0] < limits.guestsPerAddress else {
                return (.tooManyGuests(source: source, limit: limits.guestsPerAddress), 0)
            }
            state.guests[source, default: 0] += 1
            return (nil, state.sessions + guests + 1)
        }
        return record(refusal, open: open)
    }

    /// Gives back a slot taken by `beginGuestSession(from:)`.
    public func endGuestSession(from source: String) {
        let open = state.withLock { state in
            let left = state.guests[source, default: 0] - 1
            state.guests[source] = left > 0 ? left : nil
            return state.sessions + state.guests.values.reduce(0, +)
        }
        ShopMetrics.gauge(ShopMetrics.sessionsOpen, [("front", front)], Double(open))
    }

    /// Guest sessions open now.
    public var openGuestSessions: Int { state.withLock { $0.guests.values.reduce(0, +) } }

    /// Refuses everything new from now on.
    public func startDraining() {
        state.withLock { $0.draining = true }
    }

    /// Sessions open now.
    public var openSessions: Int { state.withLock { $0.sessions } }

    /// Source addresses with a connection in the last minute or, between sweeps, a little longer.
    public var trackedSources: Int { state.withLock { $0.recentConnections.count } }
}

extension AdmissionControl: LiveObject {}
