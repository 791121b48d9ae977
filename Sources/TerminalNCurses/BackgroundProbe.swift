import Foundation
import LiveObjects
import ShopModels

/// Finds out whether the terminal's background is light or dark, for `--theme auto`.
///
/// Order of calls: `ask` (echo and line editing off, the terminal asked for its background colour, OSC 11, and
/// right after for its attributes, DA1, which every terminal answers) → the shop starts meanwhile, so the round
/// trip costs no time of its own → `Question.answer()` reads until the DA1 answer or the deadline, puts the terminal's
/// modes back, and falls back on `COLORFGBG`. A terminal that ignores OSC 11 answers DA1 alone: no wait for it.
public enum BackgroundProbe {
    /// OSC 11 query, then DA1: the answer to the second marks the end of the answers.
    static let query = "\u{1B}]11;?\u{1B}\\\u{1B}[c"

    /// A question sent to the terminal; its answer is read later, once.
    public final class Question: LiveObject {
        private let input: Int32
        private let saved: termios?
        private let deadline: ContinuousClock.Instant
        private let fallback: Background?
        private var isAnswered = false
        /// What the shopper typed while the answer was read, the terminal's answers taken out: keys for the shop.
        public private(set) var typedMeanwhile: [UInt8] = []
        /// The attributes the terminal answered DA1 with (`ESC [ ? 62 ; 4 ; 22 c` is [62, 4, 22]; 4 is sixel); empty
        /// until `answer()`, and where it did not answer.
        public private(set) var deviceAttributes: [Int] = []

        fileprivate init(input: Int32, saved: termios?, deadline: ContinuousClock.Instant, fallback: Background?) {
            self.input = input
            self.saved = saved
            self.deadline = deadline
            self.fallback = fallback
        }

        /// The background the terminal said, or what `COLORFGBG` says, or nil when neither tells.
        public func answer() -> Background? {
            guard !isAnswered else { return fallback }
            isAnswered = true
            defer { restore() }
            guard saved != nil else { return fallback }
            var answer: [UInt8] = []
            let clock = ContinuousClock()
            var buffer = [UInt8](repeating: 0, count: 256)
            // The deadline bounds the wait, not what came: an answer that arrived while the shop was opening its storage
            // (past the deadline, on a loaded machine) is still read, without waiting.
            while !BackgroundProbe.endsWithDeviceAttributes(answer), answer.count < 4096 {
                let left = deadline - clock.now
                var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, left > .zero ? Int32(max(1, left.wholeMilliseconds)) : 0)
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { break }
                let count = read(input, &buffer, buffer.count)
                guard count > 0 else { break }
                answer += buffer.prefix(count)
            }
            typedMeanwhile = BackgroundProbe.keys(around: answer)
            deviceAttributes = BackgroundProbe.deviceAttributes(in: answer)
            return BackgroundProbe.background(oscAnswer: String(decoding: answer, as: UTF8.self)) ?? fallback
        }

        private func restore() {
            guard var saved else { return }
            tcsetattr(input, TCSANOW, &saved)
        }

        deinit { restore() }
    }

    /// Asks the terminal on `input`/`output`; the answer is read by `Question.answer()` within `timeout` of now.
    ///
    /// A terminal that answers ends the wait with its DA1 answer, so the timeout bounds only one that never does; a
    /// second leaves room for a slow link or a loaded machine (250 ms fell back on dark under a loaded test run).
    public static func ask(input: Int32, output: Int32, environment: [String: String], timeout: Duration = .seconds(1)) -> Question {
        let fallback = environment["COLORFGBG"].flatMap(background(colorFGBG:))
        let deadline = ContinuousClock().now.advanced(by: timeout)
        var saved = termios()
        // The Linux console prints an OSC it does not know, and its background is black unless COLORFGBG says otherwise.
        let isLinuxConsole = environment["TERM"].map { $0 == "linux" || $0.hasPrefix("linux-") } ?? false
        guard !isLinuxConsole, isatty(input) == 1, isatty(output) == 1, tcgetattr(input, &saved) == 0 else {
            return Question(input: input, saved: nil, deadline: deadline, fallback: fallback)
        }
        // Only echo and line editing off: the answer must not show, and messages printed meanwhile still end their lines.
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ICANON)
        tcsetattr(input, TCSANOW, &quiet)
        let bytes = Array(query.utf8)
        guard bytes.withUnsafeBufferPointer({ write(output, $0.baseAddress, $0.count) }) == bytes.count else {
            tcsetattr(input, TCSANOW, &saved)
            return Question(input: input, saved: nil, deadline: deadline, fallback: fallback)
        }
        return Question(input: input, saved: saved, deadline: deadline, fallback: fallback)
    }

    /// The background an OSC 11 answer (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB` then BEL or ST) describes: light when its
    /// relative luminance is above the middle grey's.
    public static func background(oscAnswer: String) -> Background? {
        // Read by hand: a regex would load Swift's regex engine into every start, which costs a terminal's first frame.
        let bytes = Array(oscAnswer.utf8)
        let start = Array("]11;rgb:".utf8)
        guard let found = (0...max(0, bytes.count - start.count)).first(where: { bytes[$0...].starts(with: start) }) else { return nil }
        var channels: [Double] = []
        var digits: [UInt8] = []
        for byte in bytes[(found + start.count)...] {
            let isHex = (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
            if isHex, digits.count < 4 {
                digits.append(byte)
                continue
            }
            guard !digits.isEmpty, let value = Int(String(decoding: digits, as: UTF8.self), radix: 16) else { return nil }
            channels.append(Double(value) / Double((1 << (4 * digits.count)) - 1))
            digits = []
            if channels.count == 3 { break }
            guard byte == UInt8(ascii: "/") else { return nil }
        }
        guard channels.count == 3 else { return nil }
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

    /// `input` without the terminal's answers (OSC sequences, ended by BEL or ST, and DA1's `ESC [ ? … c`): what was
    /// typed around them, at most 128 bytes (what curses can be handed back).
    static func keys(around input: [UInt8]) -> [UInt8] {
        var keys: [UInt8] = []
        var index = 0
        while index < input.count {
            let rest = input[index...]
            if rest.starts(with: [0x1B, UInt8(ascii: "]")]) {
                var end = index + 2
                while end < input.count, input[end] != 0x07, !input[end...].starts(with: [0x1B, UInt8(ascii: "\\")]) { end += 1 }
                index = end < input.count && input[end] == 0x07 ? end + 1 : end + 2
            } else if rest.starts(with: Array("\u{1B}[?".utf8)) {
                var end = index + 3
                while end < input.count, !(0x40...0x7E).contains(input[end]) { end += 1 }
                index = end + 1
            } else {
                keys.append(input[index])
                index += 1
            }
        }
        return Array(keys.prefix(128))
    }

    /// The numbers of the DA1 reply in `answer` (`ESC [ ? 62 ; 4 c`), or none.
    static func deviceAttributes(in answer: [UInt8]) -> [Int] {
        let start = Array("\u{1B}[?".utf8)
        guard let found = (0...max(0, answer.count - start.count)).last(where: { answer[$0...].starts(with: start) }),
            let end = answer[(found + start.count)...].firstIndex(of: UInt8(ascii: "c"))
        else { return [] }
        return String(decoding: answer[(found + start.count)..<end], as: UTF8.self).split(separator: ";").compactMap { Int($0) }
    }

    /// True once the answer holds a DA1 reply, `ESC [ ? … c`.
    fileprivate static func endsWithDeviceAttributes(_ answer: [UInt8]) -> Bool {
        guard answer.last == UInt8(ascii: "c"), let start = answer.lastIndex(of: 0x1B) else { return false }
        return answer[start...].starts(with: Array("\u{1B}[?".utf8))
    }
}
