import Foundation

/// A language the shop speaks, by its BCP 47 tag.
public struct Language: Hashable, Sendable, Codable, CustomStringConvertible {
    public let tag: String

    private init(_ tag: String) { self.tag = tag }

    public static let english = Language("en")
    public static let german = Language("de")
    public static let french = Language("fr")
    public static let spanish = Language("es")
    public static let japanese = Language("ja")
    /// The test language: every text longer, accented and bracketed, to show what a layout cuts or leaves untranslated.
    public static let pseudo = Language("en-XA")

    /// The languages the shop ships, in the order the language key steps through them.
    public static let shipped: [Language] = [.english, .german, .french, .spanish, .japanese]
    /// Every language a session may choose, the test language last.
    public static let all: [Language] = shipped + [.pseudo]

    public var description: String { tag }

    /// The language's own name for itself, as the choice shows it.
    public var name: String {
        switch tag {
        case "de": "Deutsch"
        case "fr": "Français"
        case "es": "Español"
        case "ja": "日本語"
        case "en-XA": "[Ƥšéûðö]"
        default: "English"
        }
    }

    /// The language of a tag a person or a program writes: `de`, `de-DE`, `de_DE.UTF-8`, `fr_CA@euro`, `JA`.
    ///
    /// A region the shop has no separate words for takes its language's (`de-AT` is German); nil when the shop does
    /// not speak the language.
    public static func named(_ written: String) -> Language? {
        // Standard library only: Foundation's case-insensitive comparison loads ICU's collation data, megabytes of
        // it, into every session that reads its LANG.
        let lowered = written.lowercased()
        let locale = lowered.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let base = String((locale.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").map { $0 == "_" ? "-" : $0 })
        if base == "en-xa" { return .pseudo }
        let language = base.split(separator: "-", maxSplits: 1).first.map(String.init) ?? base
        return shipped.first { $0.tag == language }
    }

    /// The region a written locale names, upper case: `AT` in `de_AT.UTF-8` or `de-AT`, `TW` in `zh-Hant-TW`; nil
    /// when it names none.
    public static func region(in written: String) -> String? {
        let locale = written.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let base = locale.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let subtags = base.split(whereSeparator: { $0 == "_" || $0 == "-" }).dropFirst()
        let region = subtags.first { $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isLetter } }
        return region.map { $0.uppercased() }
    }

    /// The language POSIX's locale variables ask for, in gettext's order: `LANGUAGE` (a colon list), `LC_ALL`,
    /// `LC_MESSAGES`, `LANG`; nil when none names a language the shop speaks, or the locale is `C`/`POSIX`.
    public static func fromEnvironment(_ environment: [String: String]) -> Language? {
        localeTag(fromEnvironment: environment).flatMap(named)
    }

    /// The locale the variables ask for, as a tag the shop reads back (`de-AT`, `fr`): the language `fromEnvironment`
    /// picks, and the region of the locale it came from.
    public static func localeTag(fromEnvironment environment: [String: String]) -> String? {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        // gettext reads LANGUAGE only when a locale is set, and never under C or POSIX.
        if let locale, locale != "C", locale != "POSIX", !locale.hasPrefix("C.") {
            for candidate in (environment["LANGUAGE"] ?? "").split(separator: ":") {
                if let language = named(String(candidate)) {
                    return tag(language, region: region(in: String(candidate)) ?? region(in: locale))
                }
            }
            return named(locale).map { tag($0, region: region(in: locale)) }
        }
        return nil
    }

    /// `de-AT`, or `de` without a region; the test language keeps its own tag.
    public static func tag(_ language: Language, region: String?) -> String {
        guard let region, language != .pseudo else { return language.tag }
        return "\(language.tag)-\(region)"
    }

    /// The language an HTTP `Accept-Language` header prefers most among those the shop speaks; nil when none.
    ///
    /// Weights are read as the header gives them (`q=0.8`); a range with `q=0` is refused, and the test language is
    /// never chosen by a browser.
    public static func fromAcceptLanguage(_ header: String) -> Language? {
        localeTag(fromAcceptLanguage: header).flatMap(named)
    }

    /// `localeTag(fromAcceptLanguage:)` of a request's header as it arrived: a header past 512 bytes is read no further.
    public static func localeTag(fromHeader header: String?) -> String? {
        header.flatMap { localeTag(fromAcceptLanguage: String($0.utf8.prefix(512)) ?? "") }
    }

    /// The range `fromAcceptLanguage` picks, as a tag with its region (`de-CH`, `ja`).
    public static func localeTag(fromAcceptLanguage header: String) -> String? {
        var best: (language: Language, weight: Double, region: String?)?
        // At most 32 ranges are read: a header of thousands costs no more than that.
        for part in header.split(separator: ",").prefix(32) {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let range = pieces.first, !range.isEmpty, range != "*" else { continue }
            var weight = 1.0
            for parameter in pieces.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)).map { min(max($0, 0), 1) } ?? 0
            }
            guard weight > 0, let language = named(range), language != .pseudo else { continue }
            // Of equal weights, the first listed wins, as browsers list them in the user's order.
            if weight > (best?.weight ?? 0) { best = (language, weight, region(in: range)) }
        }
        return best.map { tag($0.language, region: $0.region) }
    }
}
