import Foundation
import ShopPorts
import Synchronization

/// The provider events waiting and handled, in memory: for tests and the in-memory sandbox.
public final class InMemoryProviderEvents: ProviderEventLog {
    /// One handled event, as the log keeps it.
    public struct Entry: Hashable, Sendable {
        public var provider: String
        public var header: ProviderEventHeader
        public var orderNumber: String?
        public var outcome: String
    }

    private let entries = Mutex<[Entry]>([])
    struct Key: Hashable { var provider, id: String }
    /// The events waiting, each with when it is next due.
    let inbox = Mutex<[Key: (event: WaitingProviderEvent, next: Date)]>([:])

    public init() {}

    /// Every event recorded, in the order they were recorded.
    public var recorded: [Entry] { entries.withLock { $0 } }

    public func handledEvent(_ id: String, provider: String) -> Bool {
        entries.withLock { $0.contains { $0.provider == provider && $0.header.id == id } }
    }

    public func recordEvent(_ header: ProviderEventHeader, provider: String, orderNumber: String?, outcome: String, at: Date) {
        entries.withLock { all in
            guard !all.contains(where: { $0.provider == provider && $0.header.id == header.id }) else { return }
            all.append(Entry(provider: provider, header: header, orderNumber: orderNumber, outcome: outcome))
        }
    }
}

extension InMemoryProviderEvents: ProviderEventInbox {
    public func keep(_ event: WaitingProviderEvent) -> Bool {
        inbox.withLock { inbox in
            let key = Key(provider: event.provider, id: event.header.id)
            if let kept = inbox[key], !kept.event.givenUp { return false }
            inbox[key] = (event, event.receivedAt)
            return true
        }
    }

    public func claimDue(at now: Date, hold: Duration, limit: Int) -> [WaitingProviderEvent] {
        inbox.withLock { inbox in
            let due = inbox.filter { !$0.value.event.givenUp && $0.value.next <= now }
                .sorted { ($0.value.event.receivedAt, $0.key.id) < ($1.value.event.receivedAt, $1.key.id) }.prefix(max(0, limit))
            for (key, _) in due { inbox[key]?.next = now.addingTimeInterval(Double(hold.components.seconds)) }
            return due.map(\.value.event)
        }
    }

    public func logged(_ id: String, provider: String) {
        _ = inbox.withLock { $0.removeValue(forKey: Key(provider: provider, id: id)) }
    }

    public func setBack(_ id: String, provider: String, _ setback: ProviderEventSetback) {
        inbox.withLock { inbox in
            let key = Key(provider: provider, id: id)
            guard var kept = inbox[key] else { return }
            kept.event.attempts += 1
            switch setback {
            case .retry(let next, let error):
                kept.event.lastError = error
                kept.next = next
            case .gaveUp(let error):
                kept.event.lastError = error
                kept.event.givenUp = true
            }
            inbox[key] = kept
        }
    }

    public func waiting(limit: Int) -> [WaitingProviderEvent] {
        inbox.withLock { inbox in
            Array(inbox.values.map(\.event).sorted { ($0.receivedAt, $0.header.id) < ($1.receivedAt, $1.header.id) }.prefix(max(0, limit)))
        }
    }
}
