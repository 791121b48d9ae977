import LiveObjects
import Synchronization

/// A token bucket per key: `burst` requests at once, refilled at a steady rate. Time is given by the caller (a
/// monotonic reading), so tests drive it without waiting.
package final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var at: Duration
    }
    private struct State {
        var perSecond: Double
        var burst: Int
        var buckets: [String: Bucket] = [:]

        /// `key`'s bucket refilled up to `now`.
        func refilled(_ key: String, at now: Duration) -> Bucket {
            var bucket = buckets[key] ?? Bucket(tokens: Double(burst), at: now)
            let elapsed = max(0, Double((now - bucket.at).components.seconds) + Double((now - bucket.at).components.attoseconds) / 1e18)
            bucket.tokens = min(Double(burst), bucket.tokens + elapsed * perSecond)
            bucket.at = now
            return bucket
        }

        /// The whole seconds until `bucket` holds one, at the least 1.
        func wait(_ bucket: Bucket) -> Int { max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))) }
    }
    private let state: Mutex<State>

    package init(perMinute: Int, burst: Int) {
        precondition(perMinute > 0 && burst > 0)
        state = Mutex(State(perSecond: Double(perMinute) / 60, burst: burst))
    }

    /// `burst` at once, then `perHour` an hour: for what is tried rarely (discount codes that are not the shop's).
    package init(perHour: Int, burst: Int) {
        precondition(perHour > 0 && burst > 0)
        state = Mutex(State(perSecond: Double(perHour) / 3600, burst: burst))
    }

    var perMinute: Int { state.withLock { Int(($0.perSecond * 60).rounded()) } }

    /// A new rate from now on (SIGHUP); each bucket keeps what it holds, up to the new burst.
    package func update(perMinute: Int, burst: Int) {
        precondition(perMinute > 0 && burst > 0)
        state.withLock {
            $0.perSecond = Double(perMinute) / 60
            $0.burst = burst
        }
    }

    /// Takes one request from `key`'s bucket at `now`: nil when allowed, else the whole seconds until one would be.
    func take(_ key: String, at now: Duration) -> Int? {
        state.withLock { state in
            var bucket = state.refilled(key, at: now)
            defer { state.buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return state.wait(bucket) }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Whether `key`'s bucket is empty at `now`, taking nothing: nil when one is left, else the seconds until one is.
    func emptyFor(_ key: String, at now: Duration) -> Int? {
        state.withLock { state in
            let bucket = state.refilled(key, at: now)
            return bucket.tokens >= 1 ? nil : state.wait(bucket)
        }
    }
}

extension RateLimiter: LiveObject {}
