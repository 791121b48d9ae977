import Foundation
import LiveObjects

/// A clock that moves only when a test says and tells the test when an effect waits on it.
///
/// Order of calls: `await clock.sleepers(atLeast: 1)` (the effect has reached its sleep), then
/// `clock.advance(by:)` (sleeps due by then resume). Unlike a clock stepped in a loop, nothing here depends on how
/// fast a loaded machine schedules the effect.
public final class SteppedClock: Clock, @unchecked Sendable {
    public struct Instant: InstantProtocol {
        var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleeping: [Sleeper] = []
    private var cancelledBeforeSleeping: Set<UInt64> = []
    private var nextID: UInt64 = 0
    private var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init() {}

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let answer: Result<Void, any Error>? = lock.withLock {
                    if cancelledBeforeSleeping.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= current { return .success(()) }
                    sleeping.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(with: answer) } else { tellWatchers() }
            }
        } onCancel: {
            let sleeper: Sleeper? = lock.withLock {
                guard let index = sleeping.firstIndex(where: { $0.id == id }) else {
                    cancelledBeforeSleeping.insert(id)
                    return nil
                }
                return sleeping.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` sleeps are waiting for this clock to move.
    public func sleepers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = lock.withLock {
                guard sleeping.count < count else { return true }
                watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// How many sleeps are waiting now.
    public var sleeperCount: Int { lock.withLock { sleeping.count } }

    /// Moves time forward and wakes, earliest first, every sleep due by then.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = lock.withLock {
            current = current.advanced(by: duration)
            let due = sleeping.filter { $0.deadline <= current }.sorted { $0.deadline < $1.deadline }
            sleeping.removeAll { $0.deadline <= current }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    private func tellWatchers() {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            let count = sleeping.count
            let ready = watchers.filter { $0.count <= count }.map(\.continuation)
            watchers.removeAll { $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}

extension SteppedClock: LiveObject {}
