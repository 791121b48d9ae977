import Foundation

/// Words shown to a shopper, kept as the catalog's key and its arguments until a frame draws them in a language.
///
/// Write one as a literal where a `Localized` is expected; each interpolation becomes a `%@` in the key, so
/// `"Added \(name) to your cart."` looks up `Added %@ to your cart.` and fills in `name`. `scripts/extract-messages`
/// finds the keys it needs by the spelling `Localized("…")`, `.plural("…", "…", count:)` or `tr("…")`.
public struct Localized: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// What fills a `%@`: data shown as it is, a count, or words translated in their turn.
    public enum Argument: Hashable, Sendable {
        case text(String)
        case number(Int)
        case words(Localized)
        /// An amount of money, written by the reader's locale; `english` is how the shop writes it in the US.
        case money(minorUnits: Int64, currency: String, exponent: Int, english: String)
        /// A calendar day, written by the reader's locale; `english` is how the shop writes it in the US.
        case day(Date, english: String)
    }

    /// The catalog's `msgid`: the English words, with `%@` for each argument.
    public let key: String
    /// The catalog's `msgid_plural`, with the count that picks a form; nil for words without plural forms.
    public let pluralKey: String?
    public let count: Int?
    public let arguments: [Argument]
    /// False for data shown as it is (a product's name), which the catalog never holds.
    public let isTranslated: Bool
    /// The catalog's `msgctxt`: which of two uses of the same English words this is.
    public let context: String?

    public init(stringLiteral value: String) {
        self.init(key: Self.escaped(value), arguments: [])
    }

    public init(stringInterpolation: Interpolation) {
        self.init(key: stringInterpolation.key, arguments: stringInterpolation.arguments)
    }

    /// The marked form `scripts/extract-messages` finds, for words the type alone does not show.
    public init(_ words: Localized) { self = words }

    /// Words that read the same in English as another use but may not in other languages: "ZIP code" as a label, and
    /// inside a sentence, where a translation adds its article.
    public init(context: String, _ words: Localized) {
        self.init(key: words.key, pluralKey: words.pluralKey, count: words.count, arguments: words.arguments, context: context)
    }

    private init(
        key: String, pluralKey: String? = nil, count: Int? = nil, arguments: [Argument], isTranslated: Bool = true, context: String? = nil
    ) {
        self.key = key
        self.pluralKey = pluralKey
        self.count = count
        self.arguments = arguments
        self.isTranslated = isTranslated
        self.context = context
    }

    /// Words whose form follows `count` by the language's plural rule: `.plural("\(n) item", "\(n) items", count: n)`.
    public static func plural(_ one: Localized, _ other: Localized, count: Int) -> Localized {
        Localized(key: one.key, pluralKey: other.key, count: count, arguments: other.arguments)
    }

    /// Data shown as it is in every language: a name, a number, an address.
    public static func verbatim(_ text: String) -> Localized {
        Localized(key: "%@", arguments: [.text(text)], isTranslated: false)
    }

    /// Data with amounts or days in it, shown as it is but for those, which the reader's locale writes: a shipping
    /// method's name and its price.
    public static func untranslated(_ data: Localized) -> Localized {
        Localized(key: data.key, arguments: data.arguments, isTranslated: false)
    }

    /// Words that arrive as a string at run time (a port's error) and are looked up as they are.
    public static func lookup(_ english: String) -> Localized {
        Localized(key: escaped(english), arguments: [])
    }

    /// The words in English, for logs and for tests that read them.
    public var description: String { Translation.english.string(self) }

    /// Words are the same when they read the same in English, however they were built: a test writes the English it
    /// expects, and a literal with the error's text in it equals the words that interpolated the error.
    public static func == (lhs: Localized, rhs: Localized) -> Bool {
        (lhs.key == rhs.key && lhs.pluralKey == rhs.pluralKey && lhs.count == rhs.count && lhs.arguments == rhs.arguments
            && lhs.context == rhs.context) || lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// A literal's `%` doubled, so it reads back as itself through the `%@` formatting.
    static func escaped(_ text: String) -> String {
        // Byte by byte: this runs for every literal a frame draws, and Foundation's string search is far slower.
        text.utf8.contains(UInt8(ascii: "%")) ? text.replacingOccurrences(of: "%", with: "%%") : text
    }

    public struct Interpolation: StringInterpolationProtocol {
        var key = ""
        var arguments: [Argument] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            key.reserveCapacity(literalCapacity + 2 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) { key += Localized.escaped(literal) }

        public mutating func appendInterpolation(_ text: String) {
            key += "%@"
            arguments.append(.text(text))
        }

        public mutating func appendInterpolation(_ number: Int) {
            key += "%@"
            arguments.append(.number(number))
        }

        /// Any other value as its description: an error, an identifier.
        public mutating func appendInterpolation<Value>(_ value: Value) {
            key += "%@"
            arguments.append(.text(String(describing: value)))
        }

        /// An argument made by a module that knows its type: money from the shop's models.
        public mutating func appendArgument(_ argument: Argument) {
            key += "%@"
            arguments.append(argument)
        }

        public mutating func appendInterpolation(_ words: Localized) {
            key += "%@"
            arguments.append(.words(words))
        }
    }
}
