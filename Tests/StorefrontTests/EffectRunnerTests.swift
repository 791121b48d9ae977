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
}
