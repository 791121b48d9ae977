import LiveObjects

/// Runs effects as tracked tasks, so `settled()` can wait for them, and cancels work by its id.
@MainActor
public final class EffectRunner {
    /// The effects in flight. Each lets go of itself as it ends: a terminal session never waits for
    /// `settled()`, and kept until then, every finished task of a long session stayed in memory.
    private var tasks: [Int: Task<Void, Never>] = [:]
    /// Which task runs the work of each id.
    private var identified: [EffectID: Int] = [:]
    /// The stop requests of stoppable work, by the key of its task.
    private var stoppers: [Int: StopRequests] = [:]
    private var nextTaskID = 0

    public init() {}

    public func start(_ effect: Effect, send: Send) {
        for item in effect.items {
            switch item {
            case .cancel(let id):
                cancel(id)
            case .stop(let id):
                if let key = identified[id] { stoppers[key]?.request() }
            case .runStoppable(let id, let operation):
                let stops = StopRequests()
                let key = track(id, send: send) { send in await operation(send, stops) }
                stoppers[key] = stops
            case .send:
                // Reduced within its step by AppReducer.step, which never hands one on.
                break
            case .run(let id, let operation):
                track(id, send: send, operation)
            }
        }
    }

    /// Starts `operation` as a task, replacing the work under `id`; returns the task's key.
    @discardableResult
    private func track(_ id: EffectID?, send: Send, _ operation: @escaping Effect.Operation) -> Int {
        if let id { cancel(id) }
        let key = nextTaskID
        nextTaskID += 1
        if let id { identified[id] = key }
        // The task starts after this step returns, so it is in `tasks` before it can remove itself.
        tasks[key] = Task { @MainActor [weak self] in
            await operation(send)
            self?.finished(key, id)
        }
        return key
    }

    private func cancel(_ id: EffectID) {
        guard let key = identified.removeValue(forKey: id) else { return }
        tasks[key]?.cancel()
    }

    private func finished(_ key: Int, _ id: EffectID?) {
        tasks[key] = nil
        stoppers[key] = nil
        if let id, identified[id] == key { identified[id] = nil }
    }

    public var isIdle: Bool { tasks.isEmpty }

    /// How many effects are still running, for a test to say what it left behind.
    public var runningCount: Int { tasks.count }

    /// Waits until every effect started so far, and any effect they started, has finished.
    public func settled() async {
        while let (key, task) = tasks.min(by: { $0.key < $1.key }) {
            await task.value
            tasks[key] = nil
        }
    }

    /// Waits for the oldest effect in flight; false when none is.
    public func settleOne() async -> Bool {
        guard let (key, task) = tasks.min(by: { $0.key < $1.key }) else { return false }
        await task.value
        tasks[key] = nil
        return true
    }

    /// Cancels everything in flight; what it sends from then on is dropped.
    public func cancelAll() {
        for task in tasks.values { task.cancel() }
        identified.removeAll()
    }

    /// Ends everything but the work under `kept`, and waits for that, for any work under `kept` its answers
    /// start, and for the cancelled work to wind down: a session that ends cancels its reads and its payment,
    /// keeps its cart's writes, and lets go of the stores only once nothing uses them.
    public func finish(keeping kept: EffectID) async {
        let keptKey = identified[kept]
        for (key, task) in tasks where key != keptKey { task.cancel() }
        identified = identified.filter { $0.key == kept }
        while let key = identified[kept], let task = tasks[key] {
            await task.value
            finished(key, kept)
        }
        await settled()
    }
}

extension EffectRunner: LiveObject {}
