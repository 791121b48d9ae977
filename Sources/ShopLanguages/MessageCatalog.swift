import Foundation

/// One language's messages as a GNU gettext PO file holds them: `msgid` to `msgstr`, with plural forms.
///
/// Only what a PO file means is read: comments and flags are kept for the checks (`#, fuzzy` entries are not
/// used, as msgfmt leaves them out), `msgctxt` is part of an entry's key, and the header gives the plural rule.
public struct MessageCatalog: Sendable {
    public struct Entry: Sendable, Equatable {
        public var context: String?
        public var id: String
        public var pluralID: String?
        /// `msgstr`, or `msgstr[0]`, `msgstr[1]`, … for plural entries.
        public var forms: [String]
        public var flags: Set<String>
        /// The `#:` references: where the source uses it.
        public var references: [String]
        public var isFuzzy: Bool { flags.contains("fuzzy") }
    }

    public let entries: [Entry]
    public let pluralRule: PluralRule
    /// The header's `Language:` field.
    public let languageCode: String?
    private let index: [String: Int]

    public init(parsing text: String) throws(CatalogError) {
        var entries: [Entry] = []
        var current = Entry(id: "", forms: [], flags: [], references: [])
        var hasID = false
        // The field continuation lines add to: "msgid", "msgid_plural", "msgctxt" or "msgstr[i]".
        var field: String?
        var lineNumber = 0

        func finish() {
            if hasID { entries.append(current) }
            current = Entry(id: "", forms: [], flags: [], references: [])
            hasID = false
            field = nil
        }

        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty {
                finish()
                continue
            }
            if line.hasPrefix("#") {
                // A comment after an entry's strings starts the next entry.
                if hasID && !current.forms.isEmpty { finish() }
                if line.hasPrefix("#,") {
                    current.flags.formUnion(line.dropFirst(2).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                } else if line.hasPrefix("#:") {
                    current.references += line.dropFirst(2).split(separator: " ").map(String.init)
                }
                continue
            }
            if line.hasPrefix("\"") {
                guard let field else { throw CatalogError(line: lineNumber, problem: "a string with no msgid or msgstr before it") }
                try Self.append(Self.unquoted(line, line: lineNumber), to: field, of: &current)
                continue
            }
            guard let space = line.firstIndex(of: " ") else {
                throw CatalogError(line: lineNumber, problem: "\(line) is not a PO keyword followed by a string")
            }
            let keyword = String(line[..<space])
            let value = try Self.unquoted(line[line.index(after: space)...].trimmingCharacters(in: .whitespaces), line: lineNumber)
            switch keyword {
            case "msgctxt", "msgid":
                if hasID && !current.forms.isEmpty { finish() }
                if keyword == "msgid" { hasID = true }
            case "msgid_plural":
                current.pluralID = ""
            case "msgstr":
                guard hasID else { throw CatalogError(line: lineNumber, problem: "msgstr with no msgid before it") }
                current.forms = [""]
            default:
                guard keyword.hasPrefix("msgstr["), keyword.hasSuffix("]"), let i = Int(keyword.dropFirst(7).dropLast()), i == current.forms.count
                else {
                    throw CatalogError(line: lineNumber, problem: "\(keyword) is not a PO keyword, or not the next plural form")
                }
                current.forms.append("")
            }
            field = keyword
            try Self.append(value, to: keyword, of: &current)
        }
        finish()

        let header = entries.first { $0.id.isEmpty && $0.context == nil }
        let headerFields = header.map { Self.headerFields($0.forms.first ?? "") } ?? [:]
        self.pluralRule = try headerFields["Plural-Forms"].map { header throws(CatalogError) in try PluralRule(header: header) } ?? .english
        self.languageCode = headerFields["Language"]
        self.entries = entries.filter { !($0.id.isEmpty && $0.context == nil) }
        var index: [String: Int] = [:]
        for (i, entry) in self.entries.enumerated() {
            let key = Self.key(context: entry.context, id: entry.id)
            guard index[key] == nil else { throw CatalogError(line: 0, problem: "msgid \"\(entry.id)\" is in the catalog twice") }
            index[key] = i
        }
        self.index = index
    }

    /// The entry for `id`, if the catalog holds it.
    public func entry(context: String? = nil, id: String) -> Entry? {
        index[Self.key(context: context, id: id)].map { entries[$0] }
    }

    static func key(context: String?, id: String) -> String {
        context.map { "\($0)\u{4}\(id)" } ?? id
    }

    /// Adds a string to the field it continues.
    private static func append(_ value: String, to field: String, of entry: inout Entry) throws(CatalogError) {
        switch field {
        case "msgctxt": entry.context = (entry.context ?? "") + value
        case "msgid": entry.id += value
        case "msgid_plural": entry.pluralID = (entry.pluralID ?? "") + value
        default: entry.forms[entry.forms.count - 1] += value
        }
    }

    static func headerFields(_ header: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in header.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// A PO string's text: quotes off, C escapes read.
    static func unquoted(_ quoted: String, line: Int) throws(CatalogError) -> String {
        guard quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") else {
            throw CatalogError(line: line, problem: "\(quoted) is not a quoted string")
        }
        var out = ""
        var escaping = false
        for c in quoted.dropFirst().dropLast() {
            if escaping {
                switch c {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "\"", "\\": out.append(c)
                default: throw CatalogError(line: line, problem: "\\\(c) is not an escape PO files use")
                }
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else if c == "\"" {
                throw CatalogError(line: line, problem: "a quote inside a string must be written \\\"")
            } else {
                out.append(c)
            }
        }
        if escaping { throw CatalogError(line: line, problem: "the string ends in a lone backslash") }
        return out
    }
}

/// Why a catalog did not read, with its line.
public struct CatalogError: Error, Equatable, CustomStringConvertible {
    public let line: Int
    public let problem: String
    public var description: String { line > 0 ? "line \(line): \(problem)" : problem }

    public init(line: Int, problem: String) {
        self.line = line
        self.problem = problem
    }
}
