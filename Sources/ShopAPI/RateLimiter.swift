import Synchronization

/// A token bucket per key: `burst` requests at once, refilled at `perMinute` a minute. Time is given by the caller
/// (a monotonic reading), so tests drive it without waiting.
package final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var at: Duration
    }
    private struct State {
        var perMinute: Int
        var burst: Int
        var buckets: [String: Bucket] = [:]
    }
    private let state: Mutex<State>

    package init(perMinute: Int, burst: Int) {
        precondition(perMinute > 0 && burst > 0)
        state = Mutex(State(perMinute: perMinute, burst: burst))
    }

    var perMinute: Int { state.withLock { $0.perMinute } }

    /// A new rate from now on (SIGHUP); each bucket keeps what it holds, up to the new burst.
    package func update(perMinute: Int, burst: Int) {
        precondition(perMinute > 0 && burst > 0)
        state.withLock {
            $0.perMinute = perMinute
            $0.burst = burst
        }
    }

    /// Takes one request from `key`'s bucket at `now`: nil when allowed, else the whole seconds until one would be.
    func take(_ key: String, at now: Duration) -> Int? {
        return state.withLock { state in
            let rate = Double(state.perMinute) / 60
            let burst = state.burst
            var bucket = state.buckets[key] ?? Bucket(tokens: Double(burst), at: now)
            let elapsed = max(0, Double((now - bucket.at).components.seconds) + Double((now - bucket.at).components.attoseconds) / 1e18)
            bucket.tokens = min(Double(burst), bucket.tokens + elapsed * rate)
            bucket.at = now
            defer { state.buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}
