/// Where actions from outside a reducer arrive: effects, the payment sheet's and sign-in's
/// delegates, and One-Tap's navigator.
///
/// An action posted while a reducer runs (a controller that calls its delegate at once) is handled
/// in the same step, so the shopper sees one frame; one posted later is handed to the store.
@MainActor
public final class ActionMailbox: Navigator {
    private var queued: [AppAction] = []
    /// True while the store reduces an action; posts then wait in the queue.
    var isReducing = false
    /// The store's entry point for actions that arrive between steps.
    public var deliver: (@MainActor (AppAction) -> Void)?

    public init() {}

    public func post(_ action: AppAction) {
        if isReducing || deliver == nil {
            queued.append(action)
        } else {
            deliver?(action)
        }
    }

    /// The send function effects are given: one, made when first asked for, where every step made its own.
    public private(set) lazy var send = Send { [weak self] in self?.post($0) }

    /// The next action posted during the current step, if any.
    func takeQueued() -> AppAction? {
        queued.isEmpty ? nil : queued.removeFirst()
    }

    /// One-Tap's destination becomes an action of the same step.
    public func navigate(to destination: Destination) {
        post(.navigate(destination))
    }
}

/// Runs effects as tracked tasks, so `settled()` can wait for them.
@MainActor
public final class EffectRunner {
    /// The effects in flight. Each lets go of itself as it ends: a terminal session never waits for
    /// `settled()`, and kept until then, every finished task of a long session stayed in memory.
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var nextTaskID = 0

    public init() {}

    public func start(_ effect: Effect, send: Send) {
        for operation in effect.operations {
            let id = nextTaskID
            nextTaskID += 1
            // The task starts after this step returns, so it is in `tasks` before it can remove itself.
            tasks[id] = Task { @MainActor [weak self] in
                await operation(send)
                self?.tasks[id] = nil
            }
        }
    }

    public var isIdle: Bool { tasks.isEmpty }

    /// Waits until every effect started so far, and any effect they started, has finished.
    public func settled() async {
        while let (id, task) = tasks.min(by: { $0.key < $1.key }) {
            await task.value
            tasks[id] = nil
        }
    }

    /// Waits for the oldest effect in flight; false when none is.
    public func settleOne() async -> Bool {
        guard let (id, task) = tasks.min(by: { $0.key < $1.key }) else { return false }
        await task.value
        tasks[id] = nil
        return true
    }
}
