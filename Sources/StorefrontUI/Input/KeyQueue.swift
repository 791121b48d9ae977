import LiveObjects
import StorefrontCore

/// Holds keys typed while the view model is not accepting input, and decodes each one against
/// the state it will actually act on. Hosts enqueue every key and drain on every state change.
@MainActor
public final class KeyQueue {
    private var pending: [Key] = []
    /// The next key to handle: a burst of thousands (a paste) is read through once, never shifted key by key.
    private var head = 0

    public init() {}

    public var isEmpty: Bool { head == pending.count }

    /// Queues `key`, then handles as many queued keys as the view model accepts now.
    public func enqueue(_ key: Key, into viewModel: StorefrontViewModel) {
        pending.append(key)
        drain(into: viewModel)
    }

    /// Queues a burst read at once (a paste, fast typing), then handles it: text typed in a row is sent as one action.
    public func enqueue(contentsOf keys: some Collection<Key>, into viewModel: StorefrontViewModel) {
        pending.append(contentsOf: keys)
        drain(into: viewModel)
    }

    /// Handles queued keys in order until the queue is empty, the view model stops accepting input, or the shop quits.
    ///
    /// Characters that decode to text one after another are joined into one `.textInput`: typing leaves the
    /// screen where it is, so each decodes against the same state, and a paste is searched or checked once.
    public func drain(into viewModel: StorefrontViewModel) {
        defer { compact() }
        while viewModel.isAcceptingInput, head < pending.count {
            // Keys typed after quitting mean nothing: they are dropped, so nothing waits on them.
            if viewModel.reading({ $0.isQuitting }) {
                head = pending.count
                return
            }
            let key = pending[head]
            head += 1
            guard let action = viewModel.reading({ KeyBindings.action(for: key, in: $0) }) else { continue }
            guard case .textInput(var text) = action else {
                viewModel.send(action)
                continue
            }
            while head < pending.count, case .textInput(let more)? = viewModel.reading({ KeyBindings.action(for: pending[head], in: $0) }) {
                text += more
                head += 1
            }
            viewModel.send(.textInput(text))
        }
    }

    private func compact() {
        if head == pending.count {
            pending.removeAll(keepingCapacity: pending.count <= 256)
        } else if head > 0 {
            pending.removeFirst(head)
        }
        head = 0
    }
}

extension KeyQueue: LiveObject {}
