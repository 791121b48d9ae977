import LiveObjects
import ShopSessions
import Synchronization

/// Counts what one connection has asked for against its allowance; shared by its channels.
final class ConnectionBudget: Sendable {
    enum Spend { case channel, request }

    private let allowance: ConnectionAllowance
    private let spent = Mutex((channels: 0, requests: 0, exhausted: false))

    init(_ allowance: ConnectionAllowance) { self.allowance = allowance }

    /// Takes one `spend`; false (the first time with `firstRefusal` true) once the allowance is used up.
    func take(_ spend: Spend) -> (allowed: Bool, firstRefusal: Bool) {
        spent.withLock { spent in
            switch spend {
            case .channel: spent.channels += 1
            case .request: spent.requests += 1
            }
            guard spent.channels > allowance.channels || spent.requests > allowance.requests else { return (true, false) }
            defer { spent.exhausted = true }
            return (false, !spent.exhausted)
        }
    }
}

extension ConnectionBudget: LiveObject {}
