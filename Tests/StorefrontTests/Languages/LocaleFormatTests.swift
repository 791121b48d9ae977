import Foundation
import ShopLanguages
import ShopModels
import Testing

/// Money and days written by each locale, as ICU's data says, through the pattern the shop reads from it once.
@Suite("Locale formats")
struct LocaleFormatTests {
    static let narrowSpace = "\u{202F}"

    @Test(arguments: [
        ("de", "DE", Money(minorUnits: 123_450, currency: .eur), "1.234,50\u{A0}€"),
        ("fr", "FR", Money(minorUnits: 123_450, currency: .eur), "1\(narrowSpace)234,50\u{A0}€"),
        ("es", "ES", Money(minorUnits: 123_450, currency: .eur), "1234,50\u{A0}€"),
        ("es", "ES", Money(minorUnits: 1_234_550, currency: .eur), "12.345,50\u{A0}€"),
        ("ja", "JP", Money(minorUnits: 1_200, currency: .jpy), "¥1,200"),
        ("en", "CA", Money(minorUnits: 1_250, currency: .cad), "$12.50"),
        ("en", "US", Money(minorUnits: 1_250, currency: .cad), "CA$12.50"),
        ("en", "GB", Money(minorUnits: -300, currency: .gbp), "-£3.00"),
        ("de", "DE", Money(minorUnits: -300, currency: .gbp), "-3,00\u{A0}£"),
        ("de", "DE", Money(minorUnits: 1_250, currency: .kwd), "1,250\u{A0}KWD"),
    ])
    func eachLocaleWritesMoneyAsItsDataSays(language: String, region: String, amount: Money, written: String) throws {
        let locale = FormatLocale(language: try #require(Language.named(language)), region: region)
        #expect(locale.money(minorUnits: amount.minorUnits, currency: amount.currency.code, exponent: amount.currency.exponent) == written)
    }

    @Test(arguments: ["de_DE", "fr_FR", "es_ES", "ja_JP", "en_CA", "en_GB", "de_AT", "fr_CA", "es_MX"])
    func theReadPatternWritesEveryAmountAsICUDoes(identifier: String) throws {
        let parts = identifier.split(separator: "_")
        let locale = FormatLocale(language: try #require(Language.named(String(parts[0]))), region: String(parts[1]))
        var generator = SystemRandomNumberGenerator()
        for currency in [Currency.eur, .usd, .jpy, .kwd, .cad, .chf] {
            for _ in 0..<200 {
                let digits = Int.random(in: 0...12, using: &generator)
                let bound = digits == 0 ? 1 : Int64(pow(10, Double(digits)))
                let amount = Int64.random(in: -bound...bound, using: &generator)
                let style = Decimal.FormatStyle.Currency(code: currency.code, locale: Locale(identifier: locale.identifier))
                    .precision(.fractionLength(currency.exponent))
                let icu = Decimal(sign: amount < 0 ? .minus : .plus, exponent: -currency.exponent, significand: Decimal(amount.magnitude))
                    .formatted(style)
                #expect(
                    locale.money(minorUnits: amount, currency: currency.code, exponent: currency.exponent) == icu,
                    "\(amount) \(currency.code) in \(identifier)")
            }
        }
    }

    @Test func englishInTheUnitedStatesIsTheShopsOwnFormatAndOtherWordsTakeTheLocales() {
        let price = Money(minorUnits: 6_400, currency: .eur)
        let words: Localized = "Pay Storefront \(price)"
        #expect(words.description == "Pay Storefront €64.00")
        #expect(Translation.for(.german).inRegion("DE").string(words) == "Pay Storefront 64,00\u{A0}€")
        #expect(Translation.for(.english).inRegion("IE").string(words) == "Pay Storefront €64.00")
        #expect(Translation.for(.english).money(minorUnits: 6_400, currency: "CAD", exponent: 2, english: "CA$64.00") == "CA$64.00")
        #expect(Translation.for(.english).inRegion("CA").money(minorUnits: 6_400, currency: "CAD", exponent: 2, english: "CA$64.00") == "$64.00")
    }

    @Test func daysAreWrittenByTheLocaleInUTC() {
        let day = Date(timeIntervalSince1970: 1_797_033_600)  // 2026-12-12 00:00 UTC
        #expect(FormatLocale(language: .german, region: "DE").day(day) == "12. Dez. 2026")
        #expect(FormatLocale(language: .japanese, region: "JP").day(day) == "2026年12月12日")
        #expect(FormatLocale(language: .english, region: "GB").day(day) == "12 Dec 2026")
        // The day's style and the minute's are kept apart once made.
        #expect(FormatLocale(language: .german, region: "DE").minute(day.addingTimeInterval(8 * 3_600)) == "12.12.2026, 8:00")
        #expect(FormatLocale(language: .german, region: "DE").day(day) == "12. Dez. 2026")
    }
}
