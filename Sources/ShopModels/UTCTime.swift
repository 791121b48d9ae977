import Foundation
import ShopLanguages

/// A moment's Gregorian date and time in UTC, worked out by arithmetic.
///
/// Order times, log lines and card expiry never depend on the machine's zone. Foundation's `Calendar` looks up the
/// machine's zone in ICU's data as it is made, which cost a session about 4.5 MiB of resident pages for one log line
/// (docs/BENCHMARKS.md, "Why some code is shaped as it is").
public struct UTCTime: Hashable, Sendable {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int
    public let millisecond: Int

    public init(_ date: Date) {
        // Truncated to the millisecond, as formatters do, but a product like -0.001 * 1000 that lands a hair under
        // a whole number is that number.
        // Clamped to years 0000 to 9999 first: a date from outside (a webhook's `t=`) must not trap the conversion.
        let scaled = min(max(date.timeIntervalSince1970 * 1000, Self.earliestMilliseconds), Self.latestMilliseconds)
        let nearest = scaled.rounded()
        let milliseconds = Int(abs(scaled - nearest) < 0.001 ? nearest : scaled.rounded(.down))
        let (days, msOfDay) = Self.floorDivide(milliseconds, 86_400_000)
        (year, month, day) = Self.civil(daysSince1970: days)
        hour = msOfDay / 3_600_000
        minute = msOfDay / 60_000 % 60
        second = msOfDay / 1000 % 60
        millisecond = msOfDay % 1000
    }

    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970: the range written out.
    static let earliestMilliseconds = -62_167_219_200_000.0
    static let latestMilliseconds = 253_402_300_799_999.0

    /// `2026-11-23`
    public var calendarDate: String { date }

    /// `2026-11-23T09:41:07Z`
    public var iso8601: String { "\(date)T\(two(hour)):\(two(minute)):\(two(second))Z" }

    /// `2026-11-23T09:41:07.250Z`
    public var iso8601Milliseconds: String {
        "\(date)T\(two(hour)):\(two(minute)):\(two(second)).\(pad(millisecond, 3))Z"
    }

    /// `2026-11-23 09:41`
    public var minutes: String { "\(date) \(two(hour)):\(two(minute))" }

    private var date: String { "\(year < 0 ? "-" : "")\(pad(abs(year), 4))-\(two(month))-\(two(day))" }

    private func two(_ value: Int) -> String { pad(value, 2) }

    private func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDivide(_ a: Int, _ b: Int) -> (quotient: Int, remainder: Int) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// The day `YYYY-MM-DD` names, counted from 1970-01-01 (Hinnant's `days_from_civil`); nil for any other text or a
    /// day that does not exist.
    public static func dayNumber(_ written: String) -> Int? {
        let parts = written.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }), let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let shifted = month <= 2 ? year - 1 : year
        let era = floorDivide(shifted, 400).quotient
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let number = era * 146_097 + dayOfEra - 719_468
        // 2026-02-31 reads as a number but names no day: it must come back as itself.
        return civil(daysSince1970: number) == (year, month, day) ? number : nil
    }

    /// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a day counted from 1970-01-01.
    private static func civil(daysSince1970: Int) -> (year: Int, month: Int, day: Int) {
        let z = daysSince1970 + 719_468
        let era = floorDivide(z, 146_097).quotient
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Localized.Interpolation {
    /// A calendar day (UTC) in words, written by the reader's locale when the words are drawn: `12 Dec 2026`.
    public mutating func appendInterpolation(day date: Date) {
        appendArgument(.day(date, english: UTCTime(date).calendarDate))
    }
}
