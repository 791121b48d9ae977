import Foundation
import Synchronization

/// Where a shopper reads the shop: a language and a region, which together pick how money, numbers and dates are
/// written (`de` in `DE` writes `1.234,50 €`; `en` in `CA` writes Canadian dollars as `$12.50`).
public struct FormatLocale: Hashable, Sendable, CustomStringConvertible {
    public let language: Language
    /// An ISO 3166-1 alpha-2 code, upper case.
    public let region: String

    public init(language: Language, region: String) {
        self.language = language
        self.region = region.uppercased()
    }

    /// The region a language is written in when nothing says where the shopper is.
    public init(language: Language) {
        let region =
            switch language {
            case .german: "DE"
            case .french: "FR"
            case .spanish: "ES"
            case .japanese: "JP"
            default: "US"
            }
        self.init(language: language, region: region)
    }

    /// The formats the shop wrote before it had locales, which English in the United States keeps: they are written
    /// without loading ICU's data into a session.
    public static let unitedStates = FormatLocale(language: .english, region: "US")

    /// True where the shop's own English formats are the locale's (English, and the test language, in the US).
    public var writesAsBefore: Bool { region == "US" && (language == .english || language == .pseudo) }

    /// The POSIX identifier Foundation reads: `de_DE`; the test language reads as English.
    public var identifier: String {
        let language = language == .pseudo ? "en" : language.tag
        return "\(language)_\(region)"
    }

    public var description: String { identifier }

    /// The locale as a tag kept with what the shopper did (an order's, a subscription's): `de-DE`, `en-XA`.
    public var tag: String { Language.tag(language, region: region) }

    /// `minorUnits` of the ISO 4217 currency `code`, whose minor unit is 10^-`exponent`, as this locale writes it.
    public func money(minorUnits: Int64, currency code: String, exponent: Int) -> String {
        LocaleFormats.pattern(self, currency: code, exponent: exponent)?.write(minorUnits, exponent: exponent)
            ?? LocaleFormats.icuMoney(minorUnits, currency: code, exponent: exponent, locale: self)
    }

    /// A calendar day as the locale writes it in short words: `12 Dec 2026`, `12. Dez. 2026`, `2026年12月12日`.
    public func day(_ date: Date) -> String {
        date.formatted(LocaleFormats.dateStyle(self, date: .abbreviated, time: .omitted))
    }

    /// A moment to the minute, in UTC, as the locale writes it: `30.11.2026, 8:00`.
    public func minute(_ date: Date) -> String {
        date.formatted(LocaleFormats.dateStyle(self, date: .numeric, time: .shortened))
    }
}

/// How one locale writes one currency, read from ICU once and then written without it: a price is formatted on every
/// frame that shows it, and ICU's formatter costs microseconds and a copy of its data in every session.
struct MoneyPattern: Sendable, Equatable {
    var positivePrefix: String
    var positiveSuffix: String
    var negativePrefix: String
    var negativeSuffix: String
    var groupSeparator: String
    var decimalSeparator: String
    /// 2 where a locale leaves four-digit amounts ungrouped (Spanish writes `1234,50 €` but `12.345,50 €`).
    var minimumGroupingDigits: Int

    func write(_ minorUnits: Int64, exponent: Int) -> String {
        let magnitude = minorUnits.magnitude
        var scale: UInt64 = 1
        for _ in 0..<exponent { scale *= 10 }
        let whole = String(magnitude / scale)
        var out = minorUnits < 0 ? negativePrefix : positivePrefix
        let digits = Array(whole.utf8)
        let grouped = digits.count >= 3 + minimumGroupingDigits
        for (index, digit) in digits.enumerated() {
            let left = digits.count - index
            if grouped, index > 0, left % 3 == 0 { out += groupSeparator }
            out.unicodeScalars.append(Unicode.Scalar(digit))
        }
        if exponent > 0 {
            let fraction = String(magnitude % scale)
            out += decimalSeparator + String(repeating: "0", count: exponent - fraction.count) + fraction
        }
        return out + (minorUnits < 0 ? negativeSuffix : positiveSuffix)
    }
}

/// The money patterns read so far, by locale and currency, shared by every session of a process.
enum LocaleFormats {
    private struct Key: Hashable {
        var locale: FormatLocale
        var currency: String
    }

    /// nil for a pair whose pattern this reading cannot hold (a grouping other than by threes), written by ICU each time.
    private static let patterns = Mutex<[Key: MoneyPattern?]>([:])
    /// The date styles made so far, by locale and form: the orders screen writes a time on every row of every frame.
    private static let dateStyles = Mutex<[String: Date.FormatStyle]>([:])

    static func dateStyle(_ locale: FormatLocale, date: Date.FormatStyle.DateStyle, time: Date.FormatStyle.TimeStyle) -> Date.FormatStyle {
        let key = "\(locale.identifier) \(date) \(time)"
        if let made = dateStyles.withLock({ $0[key] }) { return made }
        let made = Date.FormatStyle(date: date, time: time, locale: Locale(identifier: locale.identifier), timeZone: .gmt)
        dateStyles.withLock { $0[key] = made }
        return made
    }

    static func pattern(_ locale: FormatLocale, currency: String, exponent: Int) -> MoneyPattern? {
        let key = Key(locale: locale, currency: currency)
        if let known = patterns.withLock({ $0[key] }) { return known }
        let read = read(locale, currency: currency, exponent: exponent)
        patterns.withLock { $0[key] = .some(read) }
        return read
    }

    static func icuMoney(_ minorUnits: Int64, currency: String, exponent: Int, locale: FormatLocale) -> String {
        let amount = Decimal(sign: minorUnits < 0 ? .minus : .plus, exponent: -exponent, significand: Decimal(minorUnits.magnitude))
        return amount.formatted(
            .currency(code: currency).precision(.fractionLength(exponent)).locale(Locale(identifier: locale.identifier)))
    }

    /// The pattern ICU writes `1,234,567.891…` and `-1,234,567.891…` by; nil when they do not split into a prefix,
    /// digits grouped by threes, one decimal separator and a suffix.
    static func read(_ locale: FormatLocale, currency: String, exponent: Int) -> MoneyPattern? {
        let fraction = String("891234".prefix(exponent))
        let probe = Int64("1234567" + fraction)!
        let positive = split(icuMoney(probe, currency: currency, exponent: exponent, locale: locale), fraction: fraction)
        let negative = split(icuMoney(-probe, currency: currency, exponent: exponent, locale: locale), fraction: fraction)
        guard let positive, let negative, positive.group == negative.group, positive.decimal == negative.decimal else { return nil }
        let four = Int64("1234" + fraction)!
        let shortGrouped = icuMoney(four, currency: currency, exponent: exponent, locale: locale)
        var pattern = MoneyPattern(
            positivePrefix: positive.prefix, positiveSuffix: positive.suffix, negativePrefix: negative.prefix, negativeSuffix: negative.suffix,
            groupSeparator: positive.group, decimalSeparator: positive.decimal, minimumGroupingDigits: 1)
        if pattern.write(four, exponent: exponent) != shortGrouped { pattern.minimumGroupingDigits = 2 }
        // Checked against ICU on amounts of every length: a pattern that misreads one is not used at all.
        for sample: Int64 in [0, 5, 99, 1234, 12345, 123456, 1_234_567_890, -7, -12345] {
            let scaled = exponent > 0 ? sample * Int64(pow(10, Double(exponent)).rounded()) + (sample < 0 ? -1 : 1) : sample
            guard pattern.write(scaled, exponent: exponent) == icuMoney(scaled, currency: currency, exponent: exponent, locale: locale) else {
                return nil
            }
        }
        return pattern
    }

    private static func split(_ text: String, fraction: String) -> (
        prefix: String, suffix: String, group: String, decimal: String
    )? {
        let scalars = Array(text.unicodeScalars)
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
        guard let first = scalars.firstIndex(where: isDigit), let last = scalars.lastIndex(where: isDigit) else { return nil }
        // Walks the digits: separators must fall after the 1, after the 4, and before the fraction.
        var runs: [String] = [""]
        var separators: [String] = []
        var pending = ""
        for scalar in scalars[first...last] {
            if isDigit(scalar) {
                if !pending.isEmpty {
                    separators.append(pending)
                    runs.append("")
                    pending = ""
                }
                runs[runs.count - 1].unicodeScalars.append(scalar)
            } else {
                pending.unicodeScalars.append(scalar)
            }
        }
        let expected = fraction.isEmpty ? ["1", "234", "567"] : ["1", "234", "567", fraction]
        guard runs == expected, separators.count == expected.count - 1, separators[0] == separators[1] else { return nil }
        let decimal = fraction.isEmpty ? "" : separators[2]
        guard decimal != separators[0] else { return nil }
        var prefix = ""
        prefix.unicodeScalars.append(contentsOf: scalars[..<first])
        var suffix = ""
        suffix.unicodeScalars.append(contentsOf: scalars[(last + 1)...])
        return (prefix, suffix, separators[0], decimal)
    }
}
