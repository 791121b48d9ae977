import Foundation
import ShopMerchant
import ShopPorts
import StorefrontTesting
import Synchronization
import Testing

/// A clock whose sleeps end only when the test ticks: one tick ends one sleep, now or when it begins.
final class TickingClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant
    private let ticks: AsyncStream<Void>
    private let ticking: AsyncStream<Void>.Continuation

    init() { (ticks, ticking) = AsyncStream.makeStream(of: Void.self) }

    var now: Instant { ContinuousClock.now }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        for await _ in ticks {
            try Task.checkCancellation()
            return
        }
        throw CancellationError()
    }

    /// Ends the sleep under way, or the next one.
    func tick() { ticking.yield() }
}

/// The worker beside the webhook listener: a kept event is applied at once, one that failed when its time comes.
@Suite("Provider event worker")
struct ProviderEventWorkerTests {
    @Test(
        "a kept event is applied by a pass the delivery asks for; one that failed is applied on a later tick; stopping ends the passes",
        // Generous: in the whole suite on two cores, tests wait minutes for a thread (their durations say so).
        .timeLimit(.minutes(10))
    )
    func passes() async throws {
        let fixture = try await StockedRepositoryKind.sqlite.make()
        let webhook = SwitchableWebhook()
        let dates = MovableDates(ProviderEventInboxTests.start)
        let clock = TickingClock()
        let (processed, hearing) = AsyncStream.makeStream(of: ProviderEventDesk.Outcome.self)
        let logged = Mutex<[String]>([])
        let worker = ProviderEventWorker(
            desk: ProviderEventInboxTests.desk(fixture, webhook, dates: dates.source), every: .seconds(30), clock: clock,
            log: { line in logged.withLock { $0.append(line) } }, processed: { hearing.yield($0) }
        )
        var outcomes = processed.makeAsyncIterator()
        let first = ProviderEventHeader(id: "evt_1", type: "test.event")
        #expect(await worker.receive(payload: ScriptedWebhook.payload("evt_1"), signature: "valid") == .accepted(first))
        #expect(await outcomes.next() == .applied(first, orderNumber: nil, outcome: "ignored: evt_1"))

        webhook.down = true
        let second = ProviderEventHeader(id: "evt_2", type: "test.event")
        #expect(await worker.receive(payload: ScriptedWebhook.payload("evt_2"), signature: "valid") == .accepted(second))
        guard case .postponed(second, _, let next)? = await outcomes.next() else {
            Issue.record("not postponed")
            return
        }
        webhook.down = false
        dates.advance(seconds: next.timeIntervalSince(ProviderEventInboxTests.start))
        clock.tick()
        #expect(await outcomes.next() == .applied(second, orderNumber: nil, outcome: "ignored: evt_2"), "the interval's pass")

        #expect(await worker.receive(payload: ScriptedWebhook.payload("evt_3"), signature: "bad") == .refused(.badSignature("not signed \"valid\"")))
        await worker.stop()
        hearing.finish()
        #expect(await outcomes.next() == nil, "nothing else was applied")
        #expect(logged.withLock { $0 }.isEmpty, "the inbox was always read")
        #expect(webhook.asked == 3)
    }
}
