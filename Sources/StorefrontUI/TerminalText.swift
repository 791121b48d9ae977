import ShopModels

/// Width, safety and ASCII transliteration of text bound for a terminal.
public enum TerminalText {
    /// Columns a grapheme takes: 2 for wide (see `WideCharacters`) and emoji presentation, 0 for zero-width
    /// (marks, format characters, conjoining jamo), else 1.
    public static func width(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        let value = first.value
        if value < 0x7F { return value < 0x20 ? 0 : 1 }
        if joinsAnother(character) { return drawnPieces(of: character).reduce(0) { $0 + width(of: $1) } }
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        // A flag is a pair of regional indicators; terminals draw each half one column wide.
        if regionalIndicators.contains(value) { return min(2, character.unicodeScalars.count(where: { regionalIndicators.contains($0.value) })) }
        if first.properties.generalCategory == .format || first.properties.generalCategory == .nonspacingMark { return 0 }
        if contains(value, in: WideCharacters.conjoiningJamo) { return 0 }
        return contains(value, in: WideCharacters.ranges) ? 2 : 1
    }

    /// The graphemes a terminal draws `character` as: a zero-width-joiner sequence (👩‍💻) is drawn by xterm and tmux
    /// as its parts side by side, each with the joiner after it, so each part is a cell of its own; anything else is itself.
    public static func drawnPieces(of character: Character) -> [Character] {
        guard joinsAnother(character) else { return [character] }
        var pieces: [Character] = []
        var piece = String.UnicodeScalarView()
        for scalar in character.unicodeScalars {
            piece.append(scalar)
            if scalar.value == 0x200D {
                pieces.append(Character(String(piece)))
                piece = String.UnicodeScalarView()
            }
        }
        if !piece.isEmpty { pieces.append(Character(String(piece))) }
        return pieces
    }

    /// True when a zero-width joiner inside `character` joins it to more after it.
    private static func joinsAnother(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard let joiner = scalars.firstIndex(where: { $0.value == 0x200D }) else { return false }
        return scalars.index(after: joiner) != scalars.endIndex
    }

    /// Total columns of a string as drawn.
    public static func width(of text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// The Unicode version the width table comes from.
    public static var unicodeVersion: String { WideCharacters.unicodeVersion }

    /// The code points drawn two columns wide, from the generated table.
    public static var wideRanges: [ClosedRange<UInt32>] { WideCharacters.ranges }

    private static let regionalIndicators: ClosedRange<UInt32> = 0x1F1E6...0x1F1FF

    /// Binary search of a sorted table of disjoint ranges.
    private static func contains(_ value: UInt32, in ranges: [ClosedRange<UInt32>]) -> Bool {
        guard let first = ranges.first, value >= first.lowerBound else { return false }
        var low = 0
        var high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// True when every scalar of `text` is a character of its own, one column wide: Latin, punctuation, currency
    /// signs, arrows, box drawing, Braille. Such text is drawn a scalar to a cell, with no grapheme breaking and no
    /// width lookups, which read Unicode tables a header with a "·" in it had cold on every add.
    public static func isOneColumnPerScalar(_ text: String) -> Bool {
        for scalar in text.unicodeScalars where !isOneColumnCharacter(scalar.value) { return false }
        return true
    }

    /// The scalars `isOneColumnPerScalar` accepts: none combines with a neighbour, none is a control or a format
    /// character (the soft hyphen, U+00AD, is one), none is wide.
    static func isOneColumnCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x20...0x7E, 0xA0...0xAC, 0xAE...0x2FF, 0x2010...0x2027, 0x2030...0x205E, 0x20A0...0x20BF,
            0x2190...0x21FF, 0x2500...0x259F, 0x2713, 0x2800...0x28FF:
            true
        default: false
        }
    }

    /// True when every byte is printable ASCII: such text is drawn as is, one column per byte.
    @inline(__always)
    public static func isPrintableASCII(_ text: String) -> Bool {
        // Over the contiguous bytes when there are some: every string on screen is checked on every frame.
        if let answer = text.utf8.withContiguousStorageIfAvailable({ bytes in
            for byte in bytes where byte < 0x20 || byte >= 0x7F { return false }
            return true
        }) {
            return answer
        }
        return text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// True when no scalar of `text` needs sanitizing (no control, escape or bidi control): in Unicode
    /// mode such text is drawn as it is, the common case for names with accents, symbols and glyphs.
    public static func isSafe(_ text: String) -> Bool {
        for scalar in text.unicodeScalars where scalar.isUnsafeForTerminal { return false }
        return true
    }

    /// The characters of `text` that may be drawn: escape sequences dropped, other controls shown as a placeholder.
    public static func displayable(_ text: String, charset: Charset) -> [Character] {
        if isPrintableASCII(text) || (charset == .unicode && isSafe(text)) { return Array(text) }
        var out: [Character] = []
        out.reserveCapacity(text.utf8.count)
        let placeholder: Character = charset == .ascii ? "?" : "\u{FFFD}"
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let p = pending {
                pending = nil
                return p
            }
            return scalars.next()
        }
        var cluster = String.UnicodeScalarView()
        func flush() {
            guard !cluster.isEmpty else { return }
            for character in String(cluster) {
                if charset == .ascii && !character.isASCII {
                    out.append(contentsOf: transliterate(character))
                } else {
                    out.append(character)
                }
            }
            cluster = String.UnicodeScalarView()
        }
        while let scalar = next() {
            if scalar == "\u{1B}" || scalar == "\u{9B}" {
                flush()
                skipEscapeSequence(startingWith: scalar, next: next, pushBack: { pending = $0 })
                out.append(placeholder)
                continue
            }
            if scalar == "\t" || scalar == "\n" || scalar == "\r" {
                flush()
                out.append(" ")
                continue
            }
            if scalar.isUnsafeForTerminal {
                flush()
                out.append(placeholder)
                continue
            }
            cluster.append(scalar)
        }
        flush()
        return out
    }

    /// `text` made safe to print to a terminal or a log, line by line: the screen's `displayable`, keeping newlines.
    /// Every message that carries a value from outside (a catalog, a config file, a client) goes through it.
    public static func safeLines(_ text: String) -> String {
        if isPrintableASCII(text.replacingOccurrences(of: "\n", with: " ")) { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { String(displayable(String($0), charset: .unicode)) }
            .joined(separator: "\n")
    }

    /// Consumes the rest of a CSI, OSC, or two-character escape so none of it is shown.
    private static func skipEscapeSequence(startingWith first: Unicode.Scalar, next: () -> Unicode.Scalar?, pushBack: (Unicode.Scalar) -> Void) {
        var isCSI = first == "\u{9B}"
        var isString = false
        if !isCSI {
            guard let second = next() else { return }
            switch second {
            case "[": isCSI = true
            case "]", "P", "X", "^", "_": isString = true
            default: return
            }
        }
        if isCSI {
            // Parameters and intermediates, up to a final byte in 0x40...0x7E.
            while let s = next() {
                if (0x40...0x7E).contains(s.value) { return }
                if !(0x20...0x3F).contains(s.value) {
                    pushBack(s)
                    return
                }
            }
        } else if isString {
            // Until BEL or ST (ESC \).
            while let s = next() {
                if s == "\u{07}" || s == "\u{9C}" { return }
                if s == "\u{1B}" {
                    if let t = next(), t != "\\" { pushBack(t) }
                    return
                }
            }
        }
    }

    /// An ASCII stand-in for a character the terminal cannot show.
    public static func transliterate(_ character: Character) -> String {
        if let mapped = asciiMap[character] { return mapped }
        // Accented Latin letters lose their accents: "é" → "e"; combining marks are dropped.
        var folded = ""
        for scalar in character.unicodeScalars {
            if scalar.isASCII { folded.unicodeScalars.append(scalar) } else if let base = latinBase[scalar] { folded += base }
        }
        if !folded.isEmpty { return folded }
        return "?"
    }

    private static let asciiMap: [Character: String] = [
        "─": "-", "━": "-", "│": "|", "┃": "|", "┌": "+", "┐": "+", "└": "+", "┘": "+", "├": "+", "┤": "+",
        "┬": "+", "┴": "+", "┼": "+", "╭": "+", "╮": "+", "╰": "+", "╯": "+", "═": "=", "║": "|",
        "—": "-", "–": "-", "‘": "'", "’": "'", "“": "\"", "”": "\"", "…": "...", "•": "*", "·": "-",
        "›": ">", "‹": "<", "→": "->", "←": "<-", "↑": "^", "↓": "v", "⏎": "Enter", "⌫": "Bksp",
        "€": "EUR ", "£": "GBP ", "¥": "JPY ", "₩": "KRW ", "×": "x", "✓": "v", "✗": "x", "█": "#",
        "░": ".", "▒": ":", "▓": "#", "▲": "^", "▼": "v", "◆": "*", "★": "*", "☆": "*", "\u{FFFD}": "?",
        "⠋": "|", "⠙": "/", "⠹": "-", "⠸": "\\", "⠼": "|", "⠴": "/", "⠦": "-", "⠧": "\\", "⠇": "|", "⠏": "/",
    ]
}

private let latinBase: [Unicode.Scalar: String] = {
    let groups: [(String, String)] = [
        ("ÀÁÂÃÄÅĀĂĄ", "A"), ("àáâãäåāăą", "a"), ("ÇĆĈĊČ", "C"), ("çćĉċč", "c"), ("ĎĐ", "D"), ("ďđ", "d"),
        ("ÈÉÊËĒĔĖĘĚ", "E"), ("èéêëēĕėęě", "e"), ("ĜĞĠĢ", "G"), ("ĝğġģ", "g"), ("ÌÍÎÏĨĪĬĮİ", "I"),
        ("ìíîïĩīĭįı", "i"), ("ÑŃŅŇ", "N"), ("ñńņň", "n"), ("ÒÓÔÕÖØŌŎŐ", "O"), ("òóôõöøōŏő", "o"),
        ("ŔŖŘ", "R"), ("ŕŗř", "r"), ("ŚŜŞŠ", "S"), ("śŝşš", "s"), ("ŢŤ", "T"), ("ţť", "t"),
        ("ÙÚÛÜŨŪŬŮŰŲ", "U"), ("ùúûüũūŭůűų", "u"), ("ÝŸ", "Y"), ("ýÿ", "y"), ("ŹŻŽ", "Z"), ("źżž", "z"),
        ("Æ", "AE"), ("æ", "ae"), ("ß", "ss"), ("Œ", "OE"), ("œ", "oe"),
    ]
    var map: [Unicode.Scalar: String] = [:]
    for (letters, base) in groups {
        for scalar in letters.unicodeScalars { map[scalar] = base }
    }
    return map
}()
