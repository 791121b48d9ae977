import CoreMetrics
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
            let export = MetricsExport(registry: registry, relay: MetricsRelayListener())
            started = export
            return export
        }
    }

    /// Every metric in Prometheus's text format.
    public func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return buffer
    }
}
