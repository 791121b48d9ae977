import CNCurses

/// Decodes a terminal's key bytes without curses, for a session in a worker process: UTF-8 text, and the escape
/// sequences of ANSI terminals (xterm, VT100 and VT220, rxvt, the Linux console, screen and tmux) as the key codes
/// curses would report, so `NCursesScreen.inputs(from:)` turns both into the same inputs.
///
/// Order of calls: `decode` per read → when it left bytes pending (an escape sequence cut by the read), `flush` after
/// the escape delay, which reads them as typed (a lone ESC is the Escape key).
struct KeyBytes {
    private var pending: [UInt8] = []

    /// True when bytes wait for the rest of a sequence.
    var isWaiting: Bool { !pending.isEmpty }

    /// Decodes `bytes` after what was pending; a sequence cut at the end stays pending.
    mutating func decode(_ bytes: some Sequence<UInt8>) -> [(isKeyCode: Bool, value: UInt32)] {
        pending.append(contentsOf: bytes)
        let (decoded, used) = Self.decode(pending, final: false)
        pending.removeFirst(used)
        return decoded
    }

    /// Decodes what is pending as it stands: nothing more of it is coming.
    mutating func flush() -> [(isKeyCode: Bool, value: UInt32)] {
        let (decoded, _) = Self.decode(pending, final: true)
        pending.removeAll()
        return decoded
    }

    /// The keys in `bytes` and how many bytes they took; unless `final`, an incomplete sequence at the end is left.
    static func decode(_ bytes: [UInt8], final: Bool) -> ([(isKeyCode: Bool, value: UInt32)], Int) {
        var decoded: [(isKeyCode: Bool, value: UInt32)] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1B {
                switch escapeSequence(bytes, at: index) {
                case .incomplete where !final:
                    return (decoded, index)
                case .key(let code, let length):
                    decoded.append((true, UInt32(code)))
                    index += length
                    continue
                case .ignored(let length):
                    index += length
                    continue
                case .characters(let characters, let length):
                    decoded += characters.map { (false, $0) }
                    index += length
                    continue
                case .incomplete, .notOne:
                    // ESC as a character: the Escape key, or the start of an SGR mouse report or a late answer, which
                    // `inputs(from:)` reads from the characters that follow.
                    decoded.append((false, 0x1B))
                    index += 1
                    continue
                }
            }
            let length = utf8Length(byte)
            guard length > 1 else {
                if byte < 0x80 { decoded.append((false, UInt32(byte))) }
                index += 1
                continue
            }
            guard index + length <= bytes.count else {
                if !final { return (decoded, index) }
                index = bytes.count
                break
            }
            if let scalar = String(validating: bytes[index..<(index + length)], as: UTF8.self)?.unicodeScalars.first {
                decoded.append((false, scalar.value))
            }
            index += length
        }
        return (decoded, index)
    }

    private enum Escape {
        case key(Int32, length: Int)
        /// A sequence the shop has no key for (F-keys, Insert, Delete, modified keys it does not bind, focus reports).
        case ignored(length: Int)
        /// A sequence read as other characters: an old-style mouse report, in the SGR form.
        case characters([UInt32], length: Int)
        case incomplete
        case notOne
    }

    /// The key an escape sequence at `start` stands for.
    private static func escapeSequence(_ bytes: [UInt8], at start: Int) -> Escape {
        guard start + 1 < bytes.count else { return .incomplete }
        let introducer = bytes[start + 1]
        if introducer == UInt8(ascii: "O") {
            // SS3: the keypad's application mode (arrows, Home, End, keypad Enter) and F1-F4.
            guard start + 2 < bytes.count else { return .incomplete }
            switch bytes[start + 2] {
            case UInt8(ascii: "A"): return .key(KEY_UP, length: 3)
            case UInt8(ascii: "B"): return .key(KEY_DOWN, length: 3)
            case UInt8(ascii: "C"): return .key(KEY_RIGHT, length: 3)
            case UInt8(ascii: "D"): return .key(KEY_LEFT, length: 3)
            case UInt8(ascii: "H"): return .key(KEY_HOME, length: 3)
            case UInt8(ascii: "F"): return .key(KEY_END, length: 3)
            case UInt8(ascii: "M"): return .key(KEY_ENTER, length: 3)
            case 0x40...0x7E: return .ignored(length: 3)
            default: return .notOne
            }
        }
        guard introducer == UInt8(ascii: "[") else { return .notOne }
        // An SGR mouse report is left to `inputs(from:)`, which reads it from characters, as curses passes it on.
        if start + 2 < bytes.count, bytes[start + 2] == UInt8(ascii: "<") { return sgrReport(bytes, at: start) }
        // The Linux console's F1-F5: ESC [ [ A-E.
        if start + 2 < bytes.count, bytes[start + 2] == UInt8(ascii: "[") {
            return start + 3 < bytes.count ? .ignored(length: 4) : .incomplete
        }
        // The old mouse encoding (ESC [ M and three bytes, each its value plus 32), from a terminal that does not speak
        // the SGR form the shop asked for: passed on in that form, which `inputs(from:)` reads.
        if start + 2 < bytes.count, bytes[start + 2] == UInt8(ascii: "M") {
            guard start + 5 < bytes.count else { return .incomplete }
            let (button, column, row) = (Int(bytes[start + 3]) - 32, Int(bytes[start + 4]) - 32, Int(bytes[start + 5]) - 32)
            guard button >= 0, column >= 1, row >= 1 else { return .ignored(length: 6) }
            return .characters(Array("\u{1B}[<\(button);\(column);\(row)M".unicodeScalars.map(\.value)), length: 6)
        }
        // CSI: parameters (digits, ';', '?'), then a final byte.
        var index = start + 2
        while index < bytes.count, (0x30...0x3F).contains(bytes[index]) {
            index += 1
            if index - start > 32 { return .notOne }
        }
        guard index < bytes.count else { return .incomplete }
        let final = bytes[index]
        guard (0x40...0x7E).contains(final) else { return .notOne }
        let length = index - start + 1
        let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
        // Modified keys (ESC [ 1 ; 5 A) count as the key itself, as curses' xterm entry does not name them.
        let first = parameters.split(separator: ";").first.map(String.init) ?? ""
        switch final {
        case UInt8(ascii: "A"): return .key(KEY_UP, length: length)
        case UInt8(ascii: "B"): return .key(KEY_DOWN, length: length)
        case UInt8(ascii: "C"): return .key(KEY_RIGHT, length: length)
        case UInt8(ascii: "D"): return .key(KEY_LEFT, length: length)
        case UInt8(ascii: "H"): return .key(KEY_HOME, length: length)
        case UInt8(ascii: "F"): return .key(KEY_END, length: length)
        case UInt8(ascii: "~"):
            switch first {
            case "1", "7": return .key(KEY_HOME, length: length)
            case "4", "8": return .key(KEY_END, length: length)
            case "5": return .key(KEY_PPAGE, length: length)
            case "6": return .key(KEY_NPAGE, length: length)
            default: return .ignored(length: length)
            }
        case UInt8(ascii: "c") where parameters.hasPrefix("?"):
            // A late answer to the attributes question: `inputs(from:)` drops it, as it does after curses.
            return .notOne
        default:
            return .ignored(length: length)
        }
    }

    /// An SGR mouse report at `start`: left whole to `inputs(from:)`, or incomplete while its end has not come.
    private static func sgrReport(_ bytes: [UInt8], at start: Int) -> Escape {
        var index = start + 3
        while index < bytes.count, index - start <= 24 {
            let byte = bytes[index]
            if byte == UInt8(ascii: "M") || byte == UInt8(ascii: "m") { return .notOne }
            guard (0x30...0x39).contains(byte) || byte == UInt8(ascii: ";") else { return .notOne }
            index += 1
        }
        return index - start > 24 ? .notOne : .incomplete
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
    }
}
