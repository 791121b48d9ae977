import IssueReporting
import LiveObjects
import ShopPorts
import Synchronization

/// A provider's card page that answers from a script: the link it makes, then each look at it takes the next state
/// (the last one repeats). Records what was asked.
public final class CardPageStub: HostedCardSetup {
    private let links: Mutex<[CardSetupLink]>
    private let states: Mutex<[CardSetupState]>
    private let record = Mutex<(started: [String], looks: [String], canceled: [String])>(([], [], []))

    /// `links` are handed out in turn, one per `startCardSetup`; a start past the end fails the test.
    public init(links: [CardSetupLink], states: [CardSetupState]) {
        self.links = Mutex(links)
        self.states = Mutex(states)
    }

    /// The customers a page was made for, in order.
    public var started: [String] { record.withLock { $0.started } }
    /// The pages looked at, by id, in order.
    public var looks: [String] { record.withLock { $0.looks } }
    /// The pages closed, by id.
    public var canceled: [String] { record.withLock { $0.canceled } }

    public func startCardSetup(forCustomer customerID: String) async throws(PaymentProviderError) -> CardSetupLink {
        record.withLock { $0.started.append(customerID) }
        guard let link = links.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
            reportIssue("CardPageStub.startCardSetup was called with no link left in the script.")
            throw .unavailable("no link scripted")
        }
        return link
    }

    public func cardSetupState(_ link: CardSetupLink) async throws(PaymentProviderError) -> CardSetupState {
        record.withLock { $0.looks.append(link.id) }
        return states.withLock { $0.count > 1 ? $0.removeFirst() : ($0.first ?? .open) }
    }

    public func cancelCardSetup(_ link: CardSetupLink) async {
        record.withLock { $0.canceled.append(link.id) }
    }
}

extension CardPageStub: LiveObject {}
