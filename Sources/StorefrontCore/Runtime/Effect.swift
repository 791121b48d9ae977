/// Work a reducer asks for: asynchronous operations that answer by sending actions.
///
/// Reducers never start tasks themselves; the store (or the test store) runs what they return,
/// so a test sees every answer as an action it receives.
@MainActor
public struct Effect {
    public typealias Operation = @MainActor (_ send: Send) async -> Void
    var operations: [Operation] = []

    /// Nothing to do.
    public static var none: Effect { Effect() }

    /// One operation, run as a tracked task.
    public static func run(_ operation: @escaping Operation) -> Effect {
        Effect(operations: [operation])
    }

    /// Both effects, in order of starting.
    public static func + (lhs: Effect, rhs: Effect) -> Effect {
        Effect(operations: lhs.operations + rhs.operations)
    }

    public static func += (lhs: inout Effect, rhs: Effect) {
        lhs.operations += rhs.operations
    }

    public var isEmpty: Bool { operations.isEmpty }
}

/// Delivers an effect's answer to the store it came from.
@MainActor
public struct Send {
    let deliver: @MainActor (AppAction) -> Void

    public func callAsFunction(_ action: AppAction) {
        deliver(action)
    }
}
