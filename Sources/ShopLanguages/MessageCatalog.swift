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
        public var isFuzzy: Bool { flags.contains("fuzzy") }
    }

    public let entries: [Entry]
    public let pluralRule: PluralRule
    /// The header's `Language:` field.
    public let languageCode: String?
    private let index: [String: Int]

    public init(parsing text: String) throws(CatalogError) {
        var entries: [Entry] = []
        var current = Entry(id: "", forms: [], flags: [])
        var hasID = false
        // The field continuation lines add to: "msgid", "msgid_plural", "msgctxt" or "msgstr[i]".
        var field: String?
        var lineNumber = 0

        func finish() {
            if hasID { entries.append(current) }
            current = Entry(id: "", forms: [], flags: [])
            hasID = false
            field = nil
        }

        // Read as bytes: a catalog is read at a session's first frame, and Characters cost ten times as much.
        let bytes = Array(text.utf8)
        var lineStart = 0
        while lineStart <= bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
            defer { lineStart = lineEnd + 1 }
            lineNumber += 1
            let line = Self.trimmed(bytes[lineStart..<lineEnd])
            guard let first = line.first else {
                finish()
                continue
            }
            if first == UInt8(ascii: "#") {
                // A comment after an entry's strings starts the next entry.
                if hasID && !current.forms.isEmpty { finish() }
                if line.count > 1, line[line.startIndex + 1] == UInt8(ascii: ",") {
                    let flags = String(decoding: line.dropFirst(2), as: UTF8.self)
                    current.flags.formUnion(flags.split(separator: ",").map { String($0.filter { $0 != " " && $0 != "\t" }) })
                }
                continue
            }
            if first == UInt8(ascii: "\"") {
                guard let field else { throw CatalogError(line: lineNumber, problem: "a string with no msgid or msgstr before it") }
                try Self.append(Self.unquoted(line, line: lineNumber), to: field, of: &current)
                continue
            }
            guard let space = line.firstIndex(of: UInt8(ascii: " ")) else {
                throw CatalogError(line: lineNumber, problem: "\(String(decoding: line, as: UTF8.self)) is not a PO keyword followed by a string")
            }
            let keyword = String(decoding: line[..<space], as: UTF8.self)
            let value = try Self.unquoted(Self.trimmed(line[(space + 1)...]), line: lineNumber)
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

    /// `line` without the spaces, tabs and carriage returns around it.
    static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard let first = line.firstIndex(where: { !blank($0) }), let last = line.lastIndex(where: { !blank($0) }) else { return [] }
        return line[first...last]
    }

    /// A PO string's text: quotes off, C escapes read.
    static func unquoted(_ quoted: ArraySlice<UInt8>, line: Int) throws(CatalogError) -> String {
        let quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        guard quoted.count >= 2, quoted.first == quote, quoted.last == quote else {
            throw CatalogError(line: line, problem: "\(String(decoding: quoted, as: UTF8.self)) is not a quoted string")
        }
        let inner = quoted.dropFirst().dropLast()
        // Most strings have no escape: decoded at once.
        guard inner.contains(where: { $0 == backslash || $0 == quote }) else { return String(decoding: inner, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(inner.count)
        var escaping = false
        for byte in inner {
            if escaping {
                switch byte {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case quote, backslash: out.append(byte)
                default: throw CatalogError(line: line, problem: "\\\(String(decoding: [byte], as: UTF8.self)) is not an escape PO files use")
                }
                escaping = false
            } else if byte == backslash {
                escaping = true
            } else if byte == quote {
                throw CatalogError(line: line, problem: "a quote inside a string must be written \\\"")
            } else {
                out.append(byte)
            }
        }
        if escaping { throw CatalogError(line: line, problem: "the string ends in a lone backslash") }
        return String(decoding: out, as: UTF8.self)
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
