import Foundation

/// One value handed from a task to a thread that blocks until it arrives or a deadline passes.
final class Rendezvous<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value?

    /// Keeps the first value put; later ones are dropped.
    func put(_ value: Value) {
        condition.lock()
        if self.value == nil { self.value = value }
        condition.signal()
        condition.unlock()
    }

    func wait(for duration: Duration) -> Value? {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            if !condition.wait(until: deadline) { break }
        }
        return value
    }
}

/// A serial queue the store's tasks run on, away from Swift's cooperative threads, which a
/// synchronous caller may be blocking.
final class CallExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = CallExecutor()
    private let queue = DispatchQueue(label: "storefront.postgres.calls")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
