import Foundation
import LiveObjects
import StorefrontTesting
import Synchronization
import Testing

/// Threads for tests that block: each job runs on an idle thread of this pool, or on a new one when none is idle.
///
/// A test that waits with a blocking call (waitpid, poll on a pipe, a socket) would hold one of the cooperative pool's
/// threads, which are as many as the cores (two here), and every other test would wait for them. On these threads a
/// blocked test holds a thread of its own and nothing else waits; a thread idle for ten seconds ends.
final class OwnThreads: TaskExecutor, LiveObject {
    static let shared = OwnThreads()

    /// One thread: the job it was handed, and the signal that hands it one.
    private final class Worker: Sendable, LiveObject {
        let handed = DispatchSemaphore(value: 0)
        let job = Mutex<UnownedJob?>(nil)
    }

    private let idle = Mutex<[Worker]>([])
    private static let marker = "storefront.test.ownThread"

    /// True on a thread of this pool.
    static var isCurrent: Bool { Thread.current.threadDictionary[marker] != nil }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.job.withLock { $0 = job }
            worker.handed.signal()
            return
        }
        let worker = Worker()
        worker.job.withLock { $0 = job }
        let thread = Thread { [self] in run(worker) }
        thread.name = "test's own"
        thread.start()
    }

    private func run(_ worker: Worker) {
        Thread.current.threadDictionary[Self.marker] = true
        while true {
            if let job = worker.job.withLock({ held in
                defer { held = nil }
                return held
            }) {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
            idle.withLock { $0.append(worker) }
            guard worker.handed.wait(timeout: .now() + 10) == .timedOut else { continue }
            let stillIdle = idle.withLock { workers in
                guard let index = workers.firstIndex(where: { $0 === worker }) else { return false }
                workers.remove(at: index)
                return true
            }
            if stillIdle { return }
            // Handed a job between the timeout and the lock: its signal is on the way.
            worker.handed.wait()
        }
    }
}

/// Runs each test of a suite on `OwnThreads`, so its blocking waits leave the cooperative pool to the other tests, and
/// at most `TestSlots.width` such tests at once.
///
/// The cooperative pool used to bound how many blocking tests ran at once, by starving the rest; on threads of their
/// own every test would start together, and hundreds of servers and databases on two cores time each other out.
struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// False for a suite that writes a shop's ledger, orders or stock piece by piece (the repositories' contracts),
    /// whose shops are not books a purchase kept.
    var checksTheBooks = true

    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // A suite's own scope, or a test the trait reached twice (a nested suite has it too), takes no second slot. A
        // test with a time limit takes none either: Swift Testing counts its limit from before this scope, so time
        // waiting for a slot would count against it.
        guard testCase != nil, !TestSlots.held else {
            try await withTaskExecutorPreference(OwnThreads.shared) { try await function() }
            return
        }
        guard !test.traits.contains(where: { $0 is TimeLimitTrait }) else {
            try await run(function)
            return
        }
        let slot = await TestSlots.shared.take(for: "\(test.name)\(testCase?.isParameterized == true ? " (a case)" : "")")
        do {
            try await TestSlots.$held.withValue(true) { try await run(function) }
        } catch {
            await TestSlots.shared.give(slot)
            throw error
        }
        await TestSlots.shared.give(slot)
    }
}

/// How many `.ownThreads` tests run at once: twice the cores, or `STOREFRONT_TEST_WIDTH`. A test waits for a slot
/// suspended, holding no thread.
///
/// A test that holds its slot for over three minutes is named on standard error each minute, so a run that hangs
/// says where.
actor TestSlots: LiveObject {
    static let width =
        ProcessInfo.processInfo.environment["STOREFRONT_TEST_WIDTH"].flatMap(Int.init).map { max(1, $0) }
        ?? 2 * ProcessInfo.processInfo.activeProcessorCount
    static let shared = TestSlots(width: width, ticks: .everyMinute())
    /// True inside a test that holds a slot.
    @TaskLocal static var held = false

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var holders: [UInt64: (test: String, since: ContinuousClock.Instant)] = [:]
    private var nextSlot: UInt64 = 0
    private var watching: Task<Void, Never>?

    /// When the watchdog reports: a tick each minute in a run, or whatever a test hands it.
    private let ticks: AsyncStream<Void>

    init(width: Int, ticks: AsyncStream<Void>) {
        free = width
        self.ticks = ticks
    }

    /// Waits for a free slot and returns its number for `give`.
    func take(for test: String) async -> UInt64 {
        if watching == nil { watching = Task { await watch() } }
        if free == 0 {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            free -= 1
        }
        nextSlot += 1
        holders[nextSlot] = (test, .now)
        return nextSlot
    }

    func give(_ slot: UInt64) {
        holders[slot] = nil
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }

    private func watch() async {
        for await _ in ticks {
            let long = holders.values.filter { .now - $0.since > .seconds(180) }
            guard !long.isEmpty else { continue }
            let names = long.map { "\($0.test) for \((.now - $0.since).components.seconds) s" }.sorted().joined(separator: "; ")
            FileHandle.standardError.write(Data("still running: \(names); \(waiting.count) waiting for a slot\n".utf8))
        }
    }
}

extension AsyncStream where Element == Void {
    /// A tick each minute from a dispatch timer, for as long as the stream is read.
    static func everyMinute() -> AsyncStream<Void> {
        AsyncStream { continuation in
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + 60, repeating: 60)
            timer.setEventHandler { continuation.yield() }
            let held = HeldTimer(timer: timer)
            continuation.onTermination = { _ in held.timer.cancel() }
            timer.resume()
        }
    }
}

/// A dispatch timer kept by the stream it feeds, until the stream ends; dispatch sources are safe to cancel anywhere.
private struct HeldTimer: @unchecked Sendable {
    let timer: any DispatchSourceTimer
}

extension OwnThreadsTrait {
    /// Runs a test case on `OwnThreads`, then checks the books of every shop it made a directory for
    /// (`ShopInvariants`): a test that buys cannot forget to.
    func run(_ function: @Sendable () async throws -> Void) async throws {
        guard checksTheBooks else {
            try await withTaskExecutorPreference(OwnThreads.shared) { try await function() }
            return
        }
        let made = TemporaryDirectory.PathsMade()
        defer {
            for directory in made.all {
                for data in [directory.path, directory.appendingPathComponent("data").path] {
                    expectShopInvariants(dataDirectory: data, reportingAnUnreadableShop: false)
                }
            }
        }
        try await TemporaryDirectory.$recording.withValue(made) {
            try await withTaskExecutorPreference(OwnThreads.shared) { try await function() }
        }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// The suite's tests run on threads of their own: see `OwnThreads`.
    static var ownThreads: Self { Self() }

    /// Threads of their own, without the books' check at the end: for a suite that writes a ledger, orders or stock
    /// piece by piece.
    static func ownThreads(checkingTheBooks: Bool) -> Self { Self(checksTheBooks: checkingTheBooks) }
}

/// Runs blocking `work` on a thread of `OwnThreads` and returns what it found, from wherever the caller runs (a task
/// that did not inherit the suite's preference, a server's callback).
func onOwnThread<T: Sendable>(_ work: @Sendable () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(OwnThreads.shared) { try work() }
}
