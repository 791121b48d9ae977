import LiveObjects

/// Record, then process: each delivery is answered as soon as the desk has kept it, and a pass applies what is due
/// at once and again at each tick (every 30 s in a shop), so a slow provider or database never keeps the provider
/// waiting.
///
/// Order of calls: `init` → `receive` for each delivery (from any number of connections) → `stop` once.
public final class ProviderEventWorker: Sendable {
    private let desk: ProviderEventDesk
    private let passes: RecurringPass
    static let batch = 50

    /// `processed` hears each try at an event; `log` hears an inbox that cannot be read.
    public init(
        desk: ProviderEventDesk, ticks: AsyncStream<Void> = .ticks(every: .seconds(30)),
        log: @escaping @Sendable (String) -> Void, processed: @escaping @Sendable (ProviderEventDesk.Outcome) -> Void
    ) {
        self.desk = desk
        passes = RecurringPass(ticks: ticks) {
            do {
                // A full batch may leave more due behind it.
                var outcomes: [ProviderEventDesk.Outcome]
                repeat {
                    outcomes = try await desk.processDue(limit: Self.batch, each: processed)
                } while outcomes.count == Self.batch && !Task.isCancelled
            } catch is CancellationError {
                return
            } catch {
                log("cannot read the provider's waiting events: \(error)")
            }
        }
    }

    /// Checks and keeps one delivery, asks for a pass when it was kept, and says what to answer.
    public func receive(payload: [UInt8], signature: String?) async -> ProviderEventDesk.Reply {
        let reply = await desk.receive(payload: payload, signature: signature)
        if case .accepted = reply { passes.kick() }
        return reply
    }

    /// Stops the passes after a last one, so an event kept just before quitting is applied.
    public func stop() async {
        await passes.stop()
    }
}

extension ProviderEventWorker: LiveObject {}
