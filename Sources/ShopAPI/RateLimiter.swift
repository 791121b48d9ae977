import Synchronization

/// A token bucket per key: `burst` requests at once, refilled at `perMinute` a minute. Time is given by the caller
/// (a monotonic reading), so tests drive it without waiting.
final class RateLimiter: Sendable {
    let perMinute: Int
    let burst: Int
    private struct Bucket {
        var tokens: Double
        var at: Duration
    }
    private let buckets = Mutex<[String: Bucket]>([:])

    init(perMinute: Int, burst: Int) {
        precondition(perMinute > 0 && burst > 0)
        self.perMinute = perMinute
        self.burst = burst
    }

    /// Takes one request from `key`'s bucket at `now`: nil when allowed, else the whole seconds until one would be.
    func take(_ key: String, at now: Duration) -> Int? {
        let rate = Double(perMinute) / 60
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Double(burst), at: now)
            let elapsed = max(0, Double((now - bucket.at).components.seconds) + Double((now - bucket.at).components.attoseconds) / 1e18)
            bucket.tokens = min(Double(burst), bucket.tokens + elapsed * rate)
            bucket.at = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}
