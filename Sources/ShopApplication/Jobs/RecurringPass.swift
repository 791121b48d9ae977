import LiveObjects

/// Work done in passes beside a shop: one pass at once, then one at each tick and one whenever `kick` asks,
/// never two at a time; at `stop`, one last pass (outside the cancelled task, whose database reads would refuse), so
/// what arrived just before quitting is still done.
///
/// Order of calls: `init` (the first pass starts) → `kick` any number of times → `stop` once.
public final class RecurringPass: Sendable {
    private let pass: @Sendable () async -> Void
    private let kicks: AsyncStream<Void>.Continuation
    private let loop: Task<Void, Never>
    private let ticker: Task<Void, Never>

    /// `ticks` asks for a pass each time it yields: `.ticks(every:)` in a shop, a stream the test yields into in tests.
    public init(ticks: AsyncStream<Void>, pass: @escaping @Sendable () async -> Void) {
        // One kick waiting is enough: a pass reads everything due, however many asked for it.
        let (asked, kicks) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.pass = pass
        self.kicks = kicks
        kicks.yield()
        loop = Task.detached {
            for await _ in asked {
                guard !Task.isCancelled else { return }
                await pass()
            }
        }
        ticker = Task.detached {
            for await _ in ticks { kicks.yield() }
        }
    }

    /// Asks for a pass soon: at once when none is under way, after it otherwise.
    public func kick() {
        kicks.yield()
    }

    /// Cancels the pass under way, then runs a last one for at most `lastPass`, so work that hangs never holds the
    /// shop's quitting.
    public func stop(lastPass: Duration = .seconds(5)) async {
        ticker.cancel()
        kicks.finish()
        loop.cancel()
        await loop.value
        let last = Task.detached { [pass] in await pass() }
        let deadline = Task.detached {
            try await Task.sleep(for: lastPass)
            last.cancel()
        }
        await last.value
        deadline.cancel()
    }
}

extension AsyncStream<Void> {
    /// Yields every `interval` on `clock` until the stream is let go.
    public static func ticks(every interval: Duration, clock: some Clock<Duration> = ContinuousClock()) -> AsyncStream<Void> {
        let (ticks, ticking) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let timer = Task.detached {
            while (try? await clock.sleep(for: interval)) != nil { ticking.yield() }
        }
        ticking.onTermination = { _ in timer.cancel() }
        return ticks
    }
}

extension RecurringPass: LiveObject {}
