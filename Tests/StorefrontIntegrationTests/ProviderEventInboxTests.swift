import Foundation
import LiveObjects
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorageRows
import StorageSQLite
import StorefrontTesting
import Synchronization
import Testing

/// A webhook whose provider can be switched off: each event's notice is `.ignored` with its id, and every read of
/// the provider is counted.
final class SwitchableWebhook: ProviderWebhook {
    let provider = "switchable"
    private let state = Mutex((down: false, asked: 0))

    var down: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }
    /// How many times the provider's records were read.
    var asked: Int { state.withLock { $0.asked } }

    func verify(payload: [UInt8], signature: String?, now: Date) throws(WebhookRefusal) -> ProviderEventHeader {
        try ScriptedWebhook(notices: [:]).verify(payload: payload, signature: signature, now: now)
    }

    func notice(for payload: [UInt8]) async throws -> ProviderNotice {
        let id = ((try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: String])?["id"] ?? ""
        let down = state.withLock { state in
            state.asked += 1
            return state.down
        }
        if down { throw RefundFailure.unreachable("the provider is down") }
        return .ignored(id)
    }
}

/// A date the test moves.
final class MovableDates: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date) { current = Mutex(start) }
    var source: DateSource { DateSource { self.current.withLock { $0 } } }
    func advance(seconds: TimeInterval) { current.withLock { $0.addTimeInterval(seconds) } }
}

/// The provider's events kept, then applied: answered before the provider is read, tried again with backoff, given
/// up after three days, and taken again when the provider resends one.
@Suite("Provider events kept, then applied", .ownThreads)
struct ProviderEventInboxTests {
    static let start = Date(timeIntervalSince1970: 1_795_339_800)

    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqliteInMemory, sqlite, postgres
        var testDescription: String { rawValue }

        /// The events, and what keeps their database alive.
        func make() async throws -> (any ProviderEvents, Any) {
            switch self {
            case .sqliteInMemory: return (SQLProviderEvents(database: try SQLiteDatabase.inMemory()), ())
            case .sqlite:
                let fixture = try SQLiteFixture()
                return (fixture.providerEvents, fixture)
            case .postgres:
                let fixture = try await PostgresStockFixture()
                return (fixture.providerEvents, fixture)
            }
        }
    }

    static func waiting(_ id: String, at: Date) -> WaitingProviderEvent {
        WaitingProviderEvent(
            provider: "p", header: ProviderEventHeader(id: id, type: "t"), payload: Array("{\"id\":\"\(id)\"}".utf8) + [0, 255], receivedAt: at)
    }

    @Test("an inbox keeps each event once, holds a claimed one from other workers, and revives one given up", arguments: Kind.allCases)
    func inboxContract(kind: Kind) async throws {
        let (inbox, fixture) = try await kind.make()
        defer { withExtendedLifetime(fixture) {} }
        let t0 = Self.start
        #expect(try await inbox.keep(Self.waiting("evt_b", at: t0.addingTimeInterval(1))))
        #expect(try await inbox.keep(Self.waiting("evt_a", at: t0)))
        #expect(try await !inbox.keep(Self.waiting("evt_a", at: t0.addingTimeInterval(5))), "waiting already")

        let first = try await inbox.claimDue(at: t0.addingTimeInterval(2), hold: .seconds(300), limit: 1)
        #expect(first == [Self.waiting("evt_a", at: t0)], "oldest first, the payload byte for byte, at most the limit")
        #expect(try await inbox.claimDue(at: t0.addingTimeInterval(2), hold: .seconds(300), limit: 10).map(\.header.id) == ["evt_b"], "evt_a held")
        #expect(try await inbox.claimDue(at: t0.addingTimeInterval(301), hold: .seconds(300), limit: 10).map(\.header.id) == [], "both held")
        #expect(
            try await inbox.claimDue(at: t0.addingTimeInterval(302), hold: .seconds(300), limit: 10).map(\.header.id) == ["evt_a", "evt_b"],
            "a claim runs out")

        try await inbox.setBack("evt_a", provider: "p", .retry(next: t0.addingTimeInterval(1_000), error: "down"))
        try await inbox.logged("evt_b", provider: "p")
        #expect(try await inbox.claimDue(at: t0.addingTimeInterval(999), hold: .seconds(1), limit: 10) == [])
        let retried = try await inbox.claimDue(at: t0.addingTimeInterval(1_000), hold: .seconds(1), limit: 10)
        #expect(retried.map(\.attempts) == [1] && retried.map(\.lastError) == ["down"])

        try await inbox.setBack("evt_a", provider: "p", .gaveUp(error: "still down"))
        #expect(try await inbox.claimDue(at: t0.addingTimeInterval(999_999), hold: .seconds(1), limit: 10) == [], "given up: never claimed")
        var givenUp = Self.waiting("evt_a", at: t0)
        (givenUp.attempts, givenUp.lastError, givenUp.givenUp) = (2, "still down", true)
        #expect(try await inbox.waiting(limit: 10) == [givenUp], "shown with its tries and its last error")

        #expect(try await inbox.keep(Self.waiting("evt_a", at: t0.addingTimeInterval(2_000))), "a redelivery revives it")
        let revived = try await inbox.claimDue(at: t0.addingTimeInterval(2_000), hold: .seconds(1), limit: 10)
        #expect(revived.map(\.attempts) == [0] && revived.map(\.givenUp) == [false] && revived.map(\.lastError) == [nil])
        try await inbox.logged("evt_a", provider: "p")
        #expect(try await inbox.waiting(limit: 10) == [])
    }

    @Test("the provider is answered before its records are read: slow work never keeps it waiting", arguments: StockedRepositoryKind.allCases)
    func answeredBeforeTheProviderIsRead(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let webhook = SwitchableWebhook()
        let desk = Self.desk(fixture, webhook, dates: Fixtures.fixedDates)

        let reply = await desk.receive(payload: ScriptedWebhook.payload("evt_1"), signature: "valid")
        #expect(reply == .accepted(ProviderEventHeader(id: "evt_1", type: "test.event")) && reply.httpStatus == 200)
        #expect(webhook.asked == 0, "answered with nothing read from the provider")
        let again = await desk.receive(payload: ScriptedWebhook.payload("evt_1"), signature: "valid")
        #expect(again == .duplicate(ProviderEventHeader(id: "evt_1", type: "test.event")), "a redelivery while it waits is kept once")

        #expect(
            try await desk.processDue() == [
                .applied(ProviderEventHeader(id: "evt_1", type: "test.event"), orderNumber: nil, outcome: "ignored: evt_1")
            ])
        #expect(webhook.asked == 1)
        #expect(try await fixture.providerEvents.waiting(limit: 10) == [], "applied: out of the inbox, into the log")
        #expect(try await fixture.providerEvents.handledEvent("evt_1", provider: "switchable"))
        #expect(
            await desk.receive(payload: ScriptedWebhook.payload("evt_1"), signature: "valid")
                == .duplicate(ProviderEventHeader(id: "evt_1", type: "test.event")))
    }

    @Test(
        "an event that cannot be applied is tried again, waiting longer each time, given up after three days, and taken again when resent",
        arguments: StockedRepositoryKind.allCases)
    func triedAgainThenGivenUp(kind: StockedRepositoryKind) async throws {
        let fixture = try await kind.make()
        let webhook = SwitchableWebhook()
        webhook.down = true
        let dates = MovableDates(Self.start)
        let desk = Self.desk(fixture, webhook, dates: dates.source)
        let header = ProviderEventHeader(id: "evt_1", type: "test.event")
        let down = "\(RefundFailure.unreachable("the provider is down"))"

        #expect(await desk.receive(payload: ScriptedWebhook.payload("evt_1"), signature: "valid") == .accepted(header))
        #expect(try await desk.processDue() == [.postponed(header, reason: down, next: Self.start.addingTimeInterval(30))])
        dates.advance(seconds: 29)
        #expect(try await desk.processDue() == [], "not due yet")
        dates.advance(seconds: 1)
        #expect(try await desk.processDue() == [.postponed(header, reason: down, next: Self.start.addingTimeInterval(30 + 60))], "twice as long")

        dates.advance(seconds: 3 * 86_400)
        #expect(try await desk.processDue() == [.gaveUp(header, reason: down)])
        #expect(try await desk.processDue() == [])
        #expect(try await fixture.providerEvents.waiting(limit: 10).map { [$0.attempts, $0.givenUp ? 1 : 0] } == [[3, 1]])
        #expect(try await !fixture.providerEvents.handledEvent("evt_1", provider: "switchable"), "not logged: a resend is applied")

        webhook.down = false
        #expect(
            await desk.receive(payload: ScriptedWebhook.payload("evt_1"), signature: "valid") == .accepted(header),
            "resent from the provider's dashboard")
        #expect(try await desk.processDue() == [.applied(header, orderNumber: nil, outcome: "ignored: evt_1")])
        #expect(webhook.asked == 4)
    }

    static func desk(_ fixture: any StockedOrderRepository, _ webhook: SwitchableWebhook, dates: DateSource) -> ProviderEventDesk {
        ProviderEventDesk(
            webhook: webhook, events: fixture.providerEvents,
            backend: LiveMerchantBackend(processor: SandboxProcessor(), orders: fixture.orders, dates: dates), orders: fixture.orders, dates: dates
        )
    }
}

extension SwitchableWebhook: LiveObject {}
extension MovableDates: LiveObject {}
