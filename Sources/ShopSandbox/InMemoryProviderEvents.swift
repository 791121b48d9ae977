import Foundation
import ShopPorts
import Synchronization

/// The provider events handled, in memory: for tests and the in-memory sandbox.
public final class InMemoryProviderEvents: ProviderEventLog {
    /// One handled event, as the log keeps it.
    public struct Entry: Hashable, Sendable {
        public var provider: String
        public var header: ProviderEventHeader
        public var orderNumber: String?
        public var outcome: String
    }

    private let entries = Mutex<[Entry]>([])

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
