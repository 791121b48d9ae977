/// Durations written as people write them on a command line: `90s`, `15m`, `2h`.
public enum ServeDuration {
    /// Parses a whole number followed by s, m or h (seconds when there is no unit).
    public static func parse(_ text: String) -> Duration? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600]
        var digits = Substring(text)
        var scale: Int64 = 1
        if let last = text.last, let unit = units[last] {
            digits = text.dropLast()
            scale = unit
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int64(digits), value > 0, value <= 7 * 24 * 3600 / scale else { return nil }
        return .seconds(value * scale)
    }

    /// The shortest exact form: `15m`, `90s`, `2h`.
    public static func describe(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
