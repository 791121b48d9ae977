import Foundation

/// One language's words: looks a `Localized` up in its catalog and fills in its arguments.
///
/// Words the catalog lacks, or holds untranslated or fuzzy, come out in English, as gettext does; the test
/// language turns every catalog word into its bracketed, longer form and leaves anything else as it is, so a text
/// outside the catalog shows.
public struct Translation: Sendable {
    public let language: Language
    /// How money and dates are written: the language in the shopper's region.
    public private(set) var formats: FormatLocale
    let catalog: MessageCatalog?
    /// The template's keys, for the test language, which writes its words from them.
    let templateKeys: Set<String>

    init(language: Language, catalog: MessageCatalog?, templateKeys: Set<String> = []) {
        self.language = language
        self.formats = FormatLocale(language: language)
        self.catalog = catalog
        self.templateKeys = templateKeys
    }

    public static let english = Translation(language: .english, catalog: nil)

    /// The translation for `language`, read from the embedded catalogs once per process.
    public static func `for`(_ language: Language) -> Translation {
        switch language {
        case .english: english
        case .german: ShippedCatalogs.german
        case .french: ShippedCatalogs.french
        case .spanish: ShippedCatalogs.spanish
        case .japanese: ShippedCatalogs.japanese
        case .pseudo: ShippedCatalogs.pseudo
        default: english
        }
    }

    /// The words a kept locale tag (`de-AT`, `ja`) asks for, written as in its region; English for nil, or for a
    /// language the shop does not speak.
    public static func forLocale(_ tag: String?) -> Translation {
        guard let tag, let language = Language.named(tag) else { return english }
        let translation = Translation.for(language)
        guard language != .pseudo else { return translation }
        return Language.region(in: tag).map(translation.inRegion) ?? translation
    }

    /// This language, writing money and dates as it is written in `region`.
    public func inRegion(_ region: String) -> Translation {
        var copy = self
        copy.formats = FormatLocale(language: language, region: region)
        return copy
    }

    /// `minorUnits` of `currency` as the shopper's locale writes it; `english` where that is the shop's own format.
    public func money(minorUnits: Int64, currency: String, exponent: Int, english: @autoclosure () -> String) -> String {
        formats.writesAsBefore ? english() : formats.money(minorUnits: minorUnits, currency: currency, exponent: exponent)
    }

    /// `words` in this language, with its arguments filled in.
    public func string(_ words: Localized) -> String {
        let format: String
        if !words.isTranslated {
            format = words.key
        } else if language == .pseudo {
            format = templateKeys.contains(MessageCatalog.key(context: words.context, id: words.key)) ? Pseudo.words(english(words)) : english(words)
        } else if let entry = catalog?.entry(context: words.context, id: words.key), !entry.isFuzzy, let form = form(of: entry, for: words),
            !form.isEmpty
        {
            format = form
        } else {
            format = english(words)
        }
        return Self.fill(format, words.arguments.map(argument))
    }

    /// Whether the catalog holds `words`, translated; English holds every word by definition.
    public func translates(_ words: Localized) -> Bool {
        guard language != .english, words.isTranslated else { return true }
        if language == .pseudo { return templateKeys.contains(MessageCatalog.key(context: words.context, id: words.key)) }
        guard let entry = catalog?.entry(context: words.context, id: words.key), !entry.isFuzzy else { return false }
        return form(of: entry, for: words).map { !$0.isEmpty } ?? false
    }

    private func english(_ words: Localized) -> String {
        guard let plural = words.pluralKey, let count = words.count else { return words.key }
        return PluralRule.english.form(for: count) == 0 ? words.key : plural
    }

    private func form(of entry: MessageCatalog.Entry, for words: Localized) -> String? {
        guard let count = words.count, words.pluralKey != nil else { return entry.forms.first }
        let index = catalog?.pluralRule.form(for: count) ?? 0
        return index < entry.forms.count ? entry.forms[index] : nil
    }

    private func argument(_ argument: Localized.Argument) -> String {
        switch argument {
        case .text(let text): text
        case .number(let number): String(number)
        case .words(let words): string(words)
        case .money(let minorUnits, let currency, let exponent, let english):
            money(minorUnits: minorUnits, currency: currency, exponent: exponent, english: english)
        case .day(let date, let english): formats.writesAsBefore ? english : formats.day(date)
        }
    }

    /// `format` with each `%@` filled in order, `%1$@` by position, and `%%` read as `%`.
    ///
    /// Read as UTF-8 bytes: every directive is ASCII, and a title filled at every key would otherwise walk its
    /// characters through the grapheme rules.
    public static func fill(_ format: String, _ arguments: [String]) -> String {
        let percent = UInt8(ascii: "%")
        let bytes = format.utf8
        guard bytes.contains(percent) else { return format }
        var out = ""
        var next = 0
        var copied = bytes.startIndex
        while let found = bytes[copied...].firstIndex(of: percent) {
            out += format[copied..<found]
            var rest = bytes.index(after: found)
            if rest < bytes.endIndex, bytes[rest] == percent {
                out += "%"
                copied = bytes.index(after: rest)
                continue
            }
            // A position: digits then `$`; past four digits no argument can be meant, and none is.
            var position: Int?
            var digitsEnd = rest
            var value = 0
            while digitsEnd < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[digitsEnd]) {
                value = min(value * 10 + Int(bytes[digitsEnd] - UInt8(ascii: "0")), 10_000)
                digitsEnd = bytes.index(after: digitsEnd)
            }
            if digitsEnd != rest, digitsEnd < bytes.endIndex, bytes[digitsEnd] == UInt8(ascii: "$") {
                position = value - 1
                rest = bytes.index(after: digitsEnd)
            }
            guard rest < bytes.endIndex, bytes[rest] == UInt8(ascii: "@") else {
                // Not a directive the shop writes: kept as it is.
                out += "%"
                copied = bytes.index(after: found)
                continue
            }
            let index = position ?? next
            next = index + 1
            out += index >= 0 && index < arguments.count ? arguments[index] : ""
            copied = bytes.index(after: rest)
        }
        return out + format[copied...]
    }
}

/// The catalogs embedded in the binary (`Resources/*.po`), each read on first use.
enum ShippedCatalogs {
    static let german = read(.german, EmbeddedText.de_po)
    static let french = read(.french, EmbeddedText.fr_po)
    static let spanish = read(.spanish, EmbeddedText.es_po)
    static let japanese = read(.japanese, EmbeddedText.ja_po)
    static let template: MessageCatalog = {
        do { return try MessageCatalog(parsing: EmbeddedText.storefront_pot) } catch { fatalError("storefront.pot does not read: \(error)") }
    }()
    static let pseudo = Translation(
        language: .pseudo, catalog: template, templateKeys: Set(template.entries.map { MessageCatalog.key(context: $0.context, id: $0.id) }))

    /// A shipped catalog that does not read is a build's bug, which `LanguageCatalogTests` and msgfmt catch first.
    private static func read(_ language: Language, _ text: String) -> Translation {
        do { return Translation(language: language, catalog: try MessageCatalog(parsing: text)) } catch {
            fatalError("\(language.tag).po does not read: \(error)")
        }
    }
}

/// The test language's words: accented, about 40 % longer, in brackets; `%@` and `%1$@` are kept.
public enum Pseudo {
    static let accents: [Character: Character] = [
        "a": "à", "b": "ƀ", "c": "ç", "d": "ð", "e": "é", "f": "ƒ", "g": "ĝ", "h": "ĥ", "i": "î", "j": "ĵ", "k": "ķ", "l": "ĺ", "m": "ɱ",
        "n": "ñ", "o": "ö", "p": "þ", "q": "ǫ", "r": "ŕ", "s": "š", "t": "ţ", "u": "û", "v": "ṽ", "w": "ŵ", "x": "ẋ", "y": "ý", "z": "ž",
        "A": "À", "B": "Ɓ", "C": "Ç", "D": "Ð", "E": "É", "F": "Ƒ", "G": "Ĝ", "H": "Ĥ", "I": "Î", "J": "Ĵ", "K": "Ķ", "L": "Ĺ", "M": "Ṁ",
        "N": "Ñ", "O": "Ö", "P": "Þ", "Q": "Ǫ", "R": "Ŕ", "S": "Š", "T": "Ţ", "U": "Û", "V": "Ṽ", "W": "Ŵ", "X": "Ẋ", "Y": "Ý", "Z": "Ž",
    ]

    /// `english` as the test language writes it: `Your cart` is `[Ýöûŕ çàŕţ ~~~]`.
    public static func words(_ english: String) -> String {
        var out = "["
        var letters = 0
        var inDirective = false
        for c in english {
            if inDirective {
                out.append(c)
                if c == "@" || c == "%" { inDirective = false }
                continue
            }
            if c == "%" {
                inDirective = true
                out.append(c)
                continue
            }
            if let accented = accents[c] {
                letters += 1
                out.append(accented)
            } else {
                out.append(c)
            }
        }
        // About 40 % longer: the brackets and a space count, and the rest is tildes in words of up to five.
        let padding = max(1, (english.count * 2 + 4) / 5 - 3)
        if letters > 0 {
            var tildes: [String] = []
            var left = padding
            while left > 0 {
                tildes.append(String(repeating: "~", count: min(5, left)))
                left -= 5
            }
            out += " " + tildes.joined(separator: " ")
        }
        return out + "]"
    }
}
