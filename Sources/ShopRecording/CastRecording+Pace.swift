extension CastRecording {
    /// "400ms" or "2s" as a pace between a recording's keys, from 10 ms to a minute; nil for anything else.
    public static func pace(parsing text: String) -> Duration? {
        let (digits, scale) = text.hasSuffix("ms") ? (text.dropLast(2), 1) : text.hasSuffix("s") ? (text.dropLast(), 1_000) : (Substring(""), 0)
        // Bounded before it is scaled, so no number typed can overflow.
        guard scale > 0, let value = Int(digits), (0...60_000).contains(value), (10...60_000).contains(value * scale) else { return nil }
        return .milliseconds(value * scale)
    }
}
