import Clocks
import Foundation
import ShopApplication
import ShopPorts
import StorefrontTesting
import Synchronization
import Testing

/// The worker beside the webhook listener: a kept event is applied at once, one that failed when its time comes.
@Suite("Provider event worker", .ownThreads)
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
        let (ticks, ticking) = AsyncStream.makeStream(of: Void.self)
        let (processed, hearing) = AsyncStream.makeStream(of: ProviderEventDesk.Outcome.self)
        let logged = Mutex<[String]>([])
        let worker = ProviderEventWorker(
            desk: ProviderEventInboxTests.desk(fixture, webhook, dates: dates.source), ticks: ticks,
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
        ticking.yield()
        #expect(await outcomes.next() == .applied(second, orderNumber: nil, outcome: "ignored: evt_2"), "the interval's pass")

        #expect(await worker.receive(payload: ScriptedWebhook.payload("evt_3"), signature: "bad") == .refused(.badSignature("not signed \"valid\"")))
        await worker.stop()
        hearing.finish()
        #expect(await outcomes.next() == nil, "nothing else was applied")
        #expect(logged.withLock { $0 }.isEmpty, "the inbox was always read")
        #expect(webhook.asked == 3)
    }

    @Test("a shop's ticks come from its clock, one per interval slept", .timeLimit(.minutes(10)))
    func ticksFollowTheClock() async {
        var heard = 0
        for await _ in AsyncStream<Void>.ticks(every: .seconds(30), clock: ImmediateClock()) {
            heard += 1
            if heard == 3 { break }
        }
        #expect(heard == 3)
    }
}
