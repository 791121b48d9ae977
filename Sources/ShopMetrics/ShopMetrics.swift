import CoreMetrics
import Synchronization

/// Every metric the shop exports, named once: the code records through these, and the dashboard and alert rules in
/// docs/ are checked against `definitions`.
///
/// Names and labels follow Prometheus's conventions: snake case, `_total` on counters, `_seconds` on durations, and
/// labels drawn from small fixed sets, never a shopper's data.
public enum ShopMetrics {
    /// What a metric is, as Prometheus shows it.
    public enum Kind: String, Sendable { case counter, gauge, histogram }

    /// One metric: its name, kind, labels and what it counts.
    public struct Definition: Sendable {
        public let name: String
        public let kind: Kind
        public let labels: [String]
        public let help: String
    }

    public static let sessionsStarted = "storefront_sessions_started_total"
    public static let sessionsOpen = "storefront_sessions_open"
    public static let sessionsRefused = "storefront_sessions_refused_total"
    public static let keyToFrame = "storefront_key_to_frame_seconds"
    public static let serverKeyToFrame = "storefront_server_key_to_frame_seconds"
    public static let orders = "storefront_orders_total"
    public static let payments = "storefront_payment_seconds"
    public static let webhookEvents = "storefront_webhook_events_total"
    public static let mailPending = "storefront_mail_pending"
    public static let mailOldestPending = "storefront_mail_oldest_pending_seconds"
    public static let mailFailures = "storefront_mail_failures_total"
    public static let mailSent = "storefront_mail_sent_total"
    public static let databaseCalls = "storefront_database_call_seconds"
    public static let databaseCallsInFlight = "storefront_database_calls_in_flight"
    public static let databasePoolLimit = "storefront_database_pool_connections_max"
    public static let apiRequests = "storefront_api_requests_total"
    public static let apiRequestDuration = "storefront_api_request_seconds"
    public static let rateLimited = "storefront_rate_limited_total"
    public static let workerFailures = "storefront_worker_failures_total"
    public static let logLinesDropped = "storefront_log_lines_dropped_total"

    public static let definitions: [Definition] = [
        Definition(name: sessionsStarted, kind: .counter, labels: ["front"], help: "Sessions started, by front (ssh, web)."),
        Definition(name: sessionsOpen, kind: .gauge, labels: ["front"], help: "Sessions open now, by front."),
        Definition(name: sessionsRefused, kind: .counter, labels: ["front", "reason"], help: "Connections and sessions turned away, by why."),
        Definition(name: keyToFrame, kind: .histogram, labels: ["front"], help: "From a key read to its frame written, in a shopper's session."),
        Definition(
            name: serverKeyToFrame, kind: .histogram, labels: ["front"],
            help: "From a key reaching the server to the first byte of its answer leaving the session, queueing in a worker included."),
        Definition(name: orders, kind: .counter, labels: ["front", "outcome"], help: "Tries to place an order, by how each came out."),
        Definition(name: payments, kind: .histogram, labels: ["operation", "provider", "outcome"], help: "Charges and refunds at the provider."),
        Definition(name: webhookEvents, kind: .counter, labels: ["type", "result"], help: "The provider's webhook events, by type and result."),
        Definition(name: mailPending, kind: .gauge, labels: [], help: "Messages waiting in the outbox."),
        Definition(name: mailOldestPending, kind: .gauge, labels: [], help: "How long the oldest waiting message has waited."),
        Definition(name: mailFailures, kind: .counter, labels: [], help: "Messages the mail command failed to send."),
        Definition(name: mailSent, kind: .counter, labels: [], help: "Messages sent."),
        Definition(name: databaseCalls, kind: .histogram, labels: ["database", "kind"], help: "Calls to the database, read or write."),
        Definition(name: databaseCallsInFlight, kind: .gauge, labels: ["database"], help: "Calls to the database under way now."),
        Definition(name: databasePoolLimit, kind: .gauge, labels: ["database"], help: "Connections this process may hold."),
        Definition(name: apiRequests, kind: .counter, labels: ["operation", "status"], help: "API requests, by operation and status class."),
        Definition(name: apiRequestDuration, kind: .histogram, labels: ["operation"], help: "API requests' time to answer."),
        Definition(name: rateLimited, kind: .counter, labels: ["front"], help: "Requests refused by a rate limit."),
        Definition(name: workerFailures, kind: .counter, labels: ["worker"], help: "A worker's passes that failed."),
        Definition(name: logLinesDropped, kind: .counter, labels: [], help: "Log lines dropped because the log's reader fell behind."),
    ]

    /// The front this process records for when a task says nothing else: ssh, web or local for a shopper's session.
    public static func setProcessFront(_ front: String) { processFront.withLock { $0 = front } }

    private static let processFront = Mutex("local")

    /// The front whose work this task does: the API's requests and the renewals say so, a session's process once.
    @TaskLocal public static var taskFront: String?

    /// The front to record: the task's, else the process's.
    public static var front: String { taskFront ?? processFront.withLock { $0 } }

    /// A label value from outside (an event type, an operation id) kept short and plain, or "other".
    public static func boundedLabel(_ text: String, allowed: Set<String>? = nil) -> String {
        if let allowed, !allowed.contains(text) { return "other" }
        guard text.count <= 48, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else { return "other" }
        return text
    }
}

extension ShopMetrics {
    public static func count(_ name: String, _ dimensions: [(String, String)] = [], by amount: Int64 = 1) {
        Counter(label: name, dimensions: dimensions).increment(by: amount)
    }

    public static func gauge(_ name: String, _ dimensions: [(String, String)] = [], _ value: Double) {
        Gauge(label: name, dimensions: dimensions).record(value)
    }

    public static func time(_ name: String, _ dimensions: [(String, String)] = [], _ duration: Duration) {
        Timing(name, dimensions).record(duration)
    }

    /// Runs `body` and records how long it took under `name`, whether it threw or not.
    public static func timing<T>(_ name: String, _ dimensions: [(String, String)], _ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer { time(name, dimensions, ContinuousClock.now - start) }
        return try await body()
    }
}

/// A timing looked up once and recorded many times: what a path run at every key keeps, where `ShopMetrics.time` finds
/// its metric in the registry (a lock and a label check) at each call.
public struct Timing: Sendable {
    private let timer: CoreMetrics.Timer

    public init(_ name: String, _ dimensions: [(String, String)] = []) {
        timer = CoreMetrics.Timer(label: name, dimensions: dimensions)
    }

    public func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        timer.recordNanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
