import CoreMetrics
import Foundation
import LiveObjects
import Prometheus
import ShopMetrics
import Synchronization

/// This process's metrics, in Prometheus's registry, for the admin listener's `/metrics`; and the relay its
/// sessions' processes send theirs to.
///
/// Order of calls: `start` once, before any front starts (it bootstraps swift-metrics for the process) → `exposition`
/// at each scrape → `stop`.
public final class MetricsExport: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// Where sessions send their counters and timings; nil when the system gave no socket (they keep theirs).
    public let relay: MetricsRelayListener?

    private init(registry: PrometheusCollectorRegistry, relay: MetricsRelayListener?) {
        self.registry = registry
        self.relay = relay
    }

    private static let started = Mutex<MetricsExport?>(nil)

    /// The process's export, started on the first call: swift-metrics bootstrapped with Prometheus, the relay bound.
    public static func start() -> MetricsExport {
        started.withLock { started in
            if let started { return started }
            let registry = PrometheusCollectorRegistry()
            var factory = PrometheusMetricsFactory(registry: registry)
            // A key's frame and a database call take milliseconds: buckets from a quarter of one to a second.
            let fine: [Duration] = [0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 1_000].map { .microseconds(Int64($0 * 1_000)) }
            factory.durationHistogramBuckets[ShopMetrics.keyToFrame] = fine
            // At the server a burst of keys queues: steps fine enough to tell 100 ms from 250 ms.
            factory.durationHistogramBuckets[ShopMetrics.serverKeyToFrame] = [
                0.5, 1, 2, 5, 10, 25, 50, 60, 75, 90, 100, 125, 150, 200, 250, 500, 1_000, 2_500,
            ]
            .map { .microseconds(Int64($0 * 1_000)) }
            factory.durationHistogramBuckets[ShopMetrics.databaseCalls] = fine
            MetricsSystem.bootstrap(factory)
            declareAtZero()
            let export = MetricsExport(registry: registry, relay: MetricsRelayListener())
            started = export
            return export
        }
    }

    /// Every metric in Prometheus's text format, then the process's own, as Prometheus's clients name them.
    public func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        buffer += Array(ProcessMetrics.read().utf8)
        return buffer
    }

    /// The counters a dashboard shows from the first scrape, at 0: every one without labels, and the sessions' and
    /// orders' over their fixed label values, so a fresh server answers 0, not "no data".
    private static func declareAtZero() {
        for definition in ShopMetrics.definitions where definition.kind == .counter && definition.labels.isEmpty {
            ShopMetrics.count(definition.name, [], by: 0)
        }
        for front in ["ssh", "web"] { ShopMetrics.count(ShopMetrics.sessionsStarted, [("front", front)], by: 0) }
        for front in ["ssh", "web", "api", "renewals"] {
            for outcome in ["paid", "bank_check", "no_answer", "token_refused", "refused"] {
                ShopMetrics.count(ShopMetrics.orders, [("front", front), ("outcome", outcome)], by: 0)
            }
        }
    }
}

/// The process's own figures, read from /proc/self at each scrape: what every Prometheus client library exports
/// (`process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_open_fds`, `process_max_fds`,
/// `process_start_time_seconds`), so a dashboard sees the server's CPU, memory and descriptors.
enum ProcessMetrics {
    static func read() -> String {
        var lines: [String] = []
        func add(_ name: String, _ kind: String, _ help: String, _ value: Double?) {
            guard let value else { return }
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(kind)", "\(name) \(value)"]
        }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        // /proc/self/stat: after the command's closing parenthesis, field 3 is the state; utime and stime are fields 14
        // and 15, starttime 22, rss 24 (1-based, counting from the pid).
        let stat = (try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)) ?? ""
        let fields = stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].split(separator: " ").map(String.init) } ?? []
        func field(_ number: Int) -> Double? { fields.count > number - 3 ? Double(fields[number - 3]) : nil }
        if let user = field(14), let system = field(15), ticks > 0 {
            add("process_cpu_seconds_total", "counter", "CPU time used by this process, user and system, in seconds.", (user + system) / ticks)
        }
        add("process_resident_memory_bytes", "gauge", "Resident memory of this process, in bytes.", field(24).map { $0 * page })
        let uptime = (try? String(contentsOfFile: "/proc/uptime", encoding: .utf8))?.split(separator: " ").first.flatMap { Double($0) }
        if let start = field(22), let uptime, ticks > 0 {
            let bootedAt = Date().timeIntervalSince1970 - uptime
            add("process_start_time_seconds", "gauge", "When this process started, in seconds since the Unix epoch.", bootedAt + start / ticks)
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map { Double($0.count) }
        add("process_open_fds", "gauge", "Open file descriptors of this process.", open)
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            add("process_max_fds", "gauge", "The most file descriptors this process may open.", Double(limit.rlim_cur))
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }
}

extension MetricsExport: LiveObject {}
