import LiveObjects

/// Where actions from outside a reducer arrive: effects, the sign-in's delegate, and One-Tap's navigator.
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
        post(.checkout(.navigate(destination)))
    }
}

extension ActionMailbox: LiveObject {}
