import LiveObjects

/// What `Effect.stop(id)` tells stoppable work: stop waiting. Kept once asked, so a stop that comes while the work is
/// busy (a charge in flight) ends its next wait at once.
@MainActor
public final class StopRequests {
    private var (requests, continuation) = AsyncStream<Void>.makeStream()
    /// True once a stop was asked for.
    public private(set) var isRequested = false

    init() {}

    func request() {
        isRequested = true
        continuation.yield()
    }

    /// Waits `duration` on `clock`; true when a stop was asked for before or meanwhile, or the work was cancelled (a
    /// session that ends): a cancelled sleep returns at once, and a loop of looks must not spin on it.
    public func wait(_ duration: Duration, on clock: any Clock<Duration>) async -> Bool {
        if isRequested || Task.isCancelled { return true }
        let requests = requests
        let stopped = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do { try await clock.sleep(for: duration) } catch { return false }
                return false
            }
            group.addTask {
                for await _ in requests { return true }
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        return stopped || isRequested || Task.isCancelled
    }
}

extension StopRequests: LiveObject {}
