/// When work that failed is tried again: the mail outbox and the provider's events both wait this way.
public enum RetrySchedule {
    /// How long after its `attempts`th failure the work is tried again: `first` seconds (30 by default), doubling,
    /// at most an hour.
    public static func backoff(afterAttempts attempts: Int, first: Int = 30) -> Duration {
        .seconds(min(3_600, max(0, first) << min(max(0, attempts), 7)))
    }
}
