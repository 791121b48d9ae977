import ShopPorts

/// A mail worker beside a shop: a pass over the due messages, then another every `interval`, until stopped; then one
/// last pass, so a purchase made just before quitting still has its receipt sent.
///
/// Order of calls: `start` → the shop runs → `stop`.
public struct MailLoop: Sendable {
    private let passes: RecurringPass

    public static func start(_ delivery: MailDelivery, every interval: Duration, log: @escaping @Sendable (String) -> Void) -> MailLoop {
        MailLoop(passes: RecurringPass(ticks: .ticks(every: interval)) { await pass(delivery, log: log) })
    }

    /// Cancelling the pass kills a mail command that is running; the last pass has `lastPass` before its command is
    /// killed too, so a mail command that hangs never holds the shop's quitting.
    public func stop(lastPass: Duration = .seconds(5)) async {
        await passes.stop(lastPass: lastPass)
    }

    public static func pass(_ delivery: MailDelivery, log: @Sendable (String) -> Void) async {
        do {
            let pass = try await delivery.deliverDue()
            (pass.sentLines + pass.problemLines).forEach(log)
        } catch is CancellationError {
            return
        } catch {
            log("cannot read the outbox: \(error)")
        }
    }
}
