/// The config file's lines as entries, each with its `[section]` and line: the syntax alone, no key's meaning.
///
/// `key = value` lines, `[section]` headers and `#` comments. A value is a TOML string (`"…"` with TOML's escapes,
/// or `'…'` taken as written) or bare text up to a `#`; bare text is how the file was written before it had
/// sections, and still reads the same.
public struct ConfigDocument: Sendable {
    /// One `key = value`.
    public struct Entry: Sendable, Equatable {
        /// The `[section]` it is under; nil above the first header.
        public var section: String?
        public var key: String
        public var value: String
        public var line: Int

        public init(section: String?, key: String, value: String, line: Int) {
            self.section = section
            self.key = key
            self.value = value
            self.line = line
        }

        /// `section.key`, or `key` above the first header.
        public var name: String { section.map { "\($0).\(key)" } ?? key }
    }

    /// A line that cannot be read, and why.
    public struct Problem: Error, Sendable, Equatable {
        public var line: Int
        public var message: String
    }

    public private(set) var entries: [Entry] = []
    /// Each `[section]` and the line of its header.
    public private(set) var sections: [(name: String, line: Int)] = []
    /// Every line that could not be read; the rest are still entries, so one mistake does not hide the next.
    public private(set) var problems: [Problem] = []

    public init(parsing text: String) {
        var section: String?
        var seenSections: Set<String> = []
        var seenKeys: [String: Int] = [:]
        // A byte-order mark some editors write first is not part of the first line.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        // Lines end in LF, CRLF (one Character to Swift, which splitting on "\n" alone misses) or CR.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = index + 1
            let text = raw.trimmingWhitespace()
            if text.isEmpty || text.hasPrefix("#") { continue }
            if text.hasPrefix("[") {
                guard let name = Self.header(text) else {
                    problems.append(Problem(line: line, message: "expected a section header such as [ssh], got \"\(text.prefix(60))\""))
                    continue
                }
                if !seenSections.insert(name).inserted {
                    problems.append(Problem(line: line, message: "[\(name)] appears twice; put its keys under one header"))
                }
                section = name
                sections.append((name, line))
                continue
            }
            guard let equals = text.firstIndex(of: "=") else {
                problems.append(Problem(line: line, message: "expected key = value, got \"\(text.prefix(60))\""))
                continue
            }
            let key = text[..<equals].trimmingWhitespace()
            guard Self.isName(key) else {
                problems.append(Problem(line: line, message: "expected key = value, got \"\(text.prefix(60))\""))
                continue
            }
            let value: String
            switch Self.value(text[text.index(after: equals)...].trimmingWhitespace()) {
            case .success(let read): value = read
            case .failure(let problem):
                problems.append(Problem(line: line, message: "\(key): \(problem.message)"))
                continue
            }
            let entry = Entry(section: section, key: String(key), value: value, line: line)
            if let first = seenKeys[entry.name] {
                problems.append(Problem(line: line, message: "\(entry.name) is set twice (first on line \(first))"))
                continue
            }
            seenKeys[entry.name] = line
            entries.append(entry)
        }
    }

    private static func header(_ text: Substring) -> String? {
        guard text.hasSuffix("]") else { return nil }
        let name = text.dropFirst().dropLast().trimmingWhitespace()
        return isName(name) ? String(name) : nil
    }

    /// Lower-case letters, digits and dashes, starting with a letter: every key and section the shop knows.
    private static func isName(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
    }

    private struct ValueProblem: Error { var message: String }

    private static func value(_ text: Substring) -> Result<String, ValueProblem> {
        guard let quote = text.first, quote == "\"" || quote == "'" else {
            // Bare text ends at a comment, as it always has.
            let bare = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return .success(String(bare.trimmingWhitespace()))
        }
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            if character == quote {
                let rest = text[index...].trimmingWhitespace()
                guard rest.isEmpty || rest.hasPrefix("#") else { return .failure(ValueProblem(message: "unexpected text after the closing quote")) }
                return .success(result)
            }
            if character.isASCII, let scalar = character.unicodeScalars.first, scalar.value < 0x20 || scalar.value == 0x7F, character != "\t" {
                return .failure(ValueProblem(message: "a control character in a string; write it as an escape"))
            }
            guard quote == "\"", character == "\\" else {
                result.append(character)
                continue
            }
            guard index < text.endIndex else { break }
            let escape = text[index]
            index = text.index(after: index)
            switch escape {
            case "\"": result.append("\"")
            case "\\": result.append("\\")
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "u", "U":
                let width = escape == "u" ? 4 : 8
                let digits = text[index...].prefix(width)
                guard digits.count == width, let code = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(code) else {
                    return .failure(ValueProblem(message: "\\\(escape) needs \(width) hex digits naming a character"))
                }
                // A NUL or another control character would cut a path or a header short where it is used.
                guard scalar.value >= 0x20 || scalar == "\t", scalar.value != 0x7F else {
                    return .failure(ValueProblem(message: "\\\(escape)\(digits) is a control character, which no setting takes"))
                }
                result.unicodeScalars.append(scalar)
                index = text.index(index, offsetBy: width)
            default: return .failure(ValueProblem(message: "unknown escape \\\(escape)"))
            }
        }
        return .failure(ValueProblem(message: "the string has no closing \(quote)"))
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return text
    }
}
