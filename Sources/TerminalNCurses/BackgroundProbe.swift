import Foundation

/// Finds out whether the terminal's background is light or dark, for `--theme auto`.
///
/// Order of calls: `COLORFGBG` is kept as the fallback → the terminal is asked for its background colour (OSC 11)
/// and, right after, for its attributes (DA1, which every terminal answers) in raw mode → answers are read until
/// the DA1 answer or `timeout` → the terminal's modes are put back. A terminal that ignores OSC 11 answers DA1
/// alone, so the wait ends at once instead of at the timeout.
public enum BackgroundProbe {
    /// OSC 11 query, then DA1: the answer to the second marks the end of the answers.
    static let query = "\u{1B}]11;?\u{1B}\\\u{1B}[c"

    /// The background of the terminal on `input`/`output`, or what `COLORFGBG` says, or nil when neither tells.
    public static func detect(input: Int32, output: Int32, environment: [String: String], timeout: Duration = .milliseconds(250)) -> Background? {
        let fallback = environment["COLORFGBG"].flatMap(background(colorFGBG:))
        guard isatty(input) == 1, isatty(output) == 1 else { return fallback }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return fallback }
        var raw = saved
        cfmakeraw(&raw)
        tcsetattr(input, TCSANOW, &raw)
        defer { tcsetattr(input, TCSANOW, &saved) }
        let bytes = Array(query.utf8)
        guard bytes.withUnsafeBufferPointer({ write(output, $0.baseAddress, $0.count) }) == bytes.count else { return fallback }
        var answer: [UInt8] = []
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var buffer = [UInt8](repeating: 0, count: 256)
        while clock.now < deadline, !endsWithDeviceAttributes(answer), answer.count < 4096 {
            let left = deadline - clock.now
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            let count = read(input, &buffer, buffer.count)
            guard count > 0 else { break }
            answer += buffer.prefix(count)
        }
        return background(oscAnswer: String(decoding: answer, as: UTF8.self)) ?? fallback
    }

    /// The background an OSC 11 answer (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB` then BEL or ST) describes: light when its
    /// relative luminance is above the middle grey's.
    public static func background(oscAnswer: String) -> Background? {
        guard let match = oscAnswer.firstMatch(of: /\]11;rgb:([0-9a-fA-F]{1,4})\/([0-9a-fA-F]{1,4})\/([0-9a-fA-F]{1,4})/) else { return nil }
        let channels = [match.output.1, match.output.2, match.output.3].map { hex -> Double in
            let value = Double(Int(hex, radix: 16) ?? 0)
            return value / Double((1 << (4 * hex.count)) - 1)
        }
        return relativeLuminance(channels) > 0.18 ? .light : .dark
    }

    /// What `COLORFGBG` ("15;0", "0;default;15", as rxvt and Konsole set it) says: its last field is the background's
    /// colour number, and 7 (white) and 9 to 15 (the bright ones but 8, dark grey) are light.
    public static func background(colorFGBG: String) -> Background? {
        guard let last = colorFGBG.split(separator: ";").last, let number = Int(last) else { return nil }
        return number == 7 || (9...15).contains(number) ? .light : .dark
    }

    /// WCAG's relative luminance of an sRGB colour whose channels are 0...1.
    public static func relativeLuminance(_ channels: [Double]) -> Double {
        let linear = channels.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    }

    /// True once the answer holds a DA1 reply, `ESC [ ? … c`.
    private static func endsWithDeviceAttributes(_ answer: [UInt8]) -> Bool {
        guard answer.last == UInt8(ascii: "c"), let start = answer.lastIndex(of: 0x1B) else { return false }
        return answer[start...].starts(with: Array("\u{1B}[?".utf8))
    }
}
