import Clocks

extension TestClock where Duration == Swift.Duration {
    /// Yields until something sleeps on this clock, at most `tries` times; false when nothing did.
    ///
    /// A test that advances the clock the moment the state says a wait began can run before the effect reaches its
    /// `sleep`: that sleep then starts after the advance and waits for ever. Advancing after this does not.
    public func untilSomethingSleeps(tries: Int = 100_000) async -> Bool {
        for _ in 0..<tries {
            do {
                try await checkSuspension()
            } catch {
                return true
            }
            await Task.yield()
        }
        return false
    }
}
