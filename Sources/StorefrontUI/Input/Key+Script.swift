import StorefrontCore

extension Key {
    /// Parses a comma-separated key script ("enter,a,c,enter,p,enter"); a literal comma is written "comma".
    public static func script(_ script: String) throws -> [Key] {
        try scriptEntries(script).map { entry in
            guard let key = entry.key else { throw KeyScriptError(position: entry.position, name: entry.written) }
            return key
        }
    }

    /// The entries of a comma-separated key script, in order: each name trimmed of spaces and tabs, its key
    /// (nil where the name is none), its position from 1 and its text as written, for an error that names it.
    public static func scriptEntries(_ script: String) -> [(name: String, key: Key?, position: Int, written: String)] {
        guard !script.isEmpty else { return [] }
        return script.split(separator: ",", omittingEmptySubsequences: false).enumerated().map { index, written in
            let name = trimmedOfSpacesAndTabs(written)
            return (name, name == "comma" ? .character(",") : Key(name: name), index + 1, String(written))
        }
    }

    /// `text` without the spaces (general category Zs) and tabs at either end: what `trimmingCharacters(in:
    /// .whitespaces)` does, without the bridge to NSString whose first use cost a headless start 0.3 ms.
    private static func trimmedOfSpacesAndTabs(_ text: Substring) -> String {
        let isBlank = { (scalar: Unicode.Scalar) in scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        var scalars = text.unicodeScalars[...]
        while let first = scalars.first, isBlank(first) { scalars.removeFirst() }
        while let last = scalars.last, isBlank(last) { scalars.removeLast() }
        return String(scalars)
    }
}

/// A key name in a script that is not a key.
public struct KeyScriptError: Error, Equatable, CustomStringConvertible {
    public var position: Int
    public var name: String
    public init(position: Int, name: String) {
        self.position = position
        self.name = name
    }
    public var description: String {
        let known = Key.names.keys.sorted().joined(separator: ", ")
        return "unknown key \"\(name)\" at position \(position); use \(known), comma, or a single character"
    }
}

extension Key {
    /// The bytes a terminal sends for this key once the program has turned keypad transmit mode
    /// on, as ncurses does (xterm's application cursor keys: ESC O A for up).
    public var terminalBytes: [UInt8] {
        switch self {
        case .up: Array("\u{1B}OA".utf8)
        case .down: Array("\u{1B}OB".utf8)
        case .right: Array("\u{1B}OC".utf8)
        case .left: Array("\u{1B}OD".utf8)
        case .home: Array("\u{1B}OH".utf8)
        case .end: Array("\u{1B}OF".utf8)
        case .pageUp: Array("\u{1B}[5~".utf8)
        case .pageDown: Array("\u{1B}[6~".utf8)
        case .enter: [13]
        case .escape: [27]
        case .tab: [9]
        case .backspace: [127]
        case .character(let character): Array(String(character).utf8)
        }
    }
}
