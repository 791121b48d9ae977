import Clocks
import StorefrontCore
import Testing

@MainActor
@Suite("Effect runner")
struct EffectRunnerTests {
    /// A terminal session never waits for `settled()`: what ended must not stay behind for it.
    @Test func aFinishedEffectIsLetGoWithoutWaitingForSettled() async {
        let runner = EffectRunner()
        let mailbox = ActionMailbox()
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            runner.start(.run { _ in finished.resume() }, send: mailbox.send)
            #expect(!runner.isIdle)
        }
        #expect(runner.isIdle)
    }

    @Test func settledWaitsForEffectsStartedByEffects() async {
        let runner = EffectRunner()
        let mailbox = ActionMailbox()
        var order: [String] = []
        runner.start(
            .run { send in
                order.append("first")
                runner.start(.run { _ in order.append("second") }, send: send)
            }, send: mailbox.send)
        await runner.settled()
        #expect(order == ["first", "second"])
        #expect(runner.isIdle)
    }

    /// Esc while a payment waits: `.stop` ends the wait, and what the work sends after it is still delivered.
    @Test(.timeLimit(.minutes(10))) func aStopEndsTheWaitAndTheWorksLastAnswerStillCounts() async {
        let runner = EffectRunner()
        let mailbox = ActionMailbox()
        let clock = TestClock()
        var received: [AppAction] = []
        mailbox.deliver = { received.append($0) }
        var waits = 0
        runner.start(
            .run(id: .checkoutCharge) { send, stops in
                while await !stops.wait(.seconds(5), on: clock) { waits += 1 }
                send(.checkout(.checkingPayment))
            }, send: mailbox.send)
        await Task.yield()
        runner.start(.stop(.checkoutCharge), send: mailbox.send)
        await runner.settled()
        #expect(waits == 0, "the stop ended the first wait, with no time passing")
        #expect(received == [.checkout(.checkingPayment)], "the answer after the stop is delivered")
    }

    /// A session that ends cancels its work: a loop of waits must end rather than spin on a sleep that returns at once.
    @Test func cancelledWorkStopsWaiting() async {
        let runner = EffectRunner()
        let mailbox = ActionMailbox()
        var looks = 0
        runner.start(
            .run(id: .checkoutCharge) { _, stops in
                while await !stops.wait(.seconds(5), on: TestClock()) {
                    looks += 1
                    if looks > 100 { return }
                }
            }, send: mailbox.send)
        runner.cancelAll()
        await runner.settled()
        #expect(looks == 0)
    }
}
