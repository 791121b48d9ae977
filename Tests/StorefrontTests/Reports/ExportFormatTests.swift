import Foundation
import MerchantReports
import ShopCommands
import ShopModels
import ShopPorts
import Testing

/// The exports' formats: RFC 4180 CSV with no cell a spreadsheet runs as a formula, JSON written a row at a time, the
/// period a command names, and a refund's tax part.
@Suite("Export formats")
struct ExportFormatTests {
    func written(_ format: ExportFormat, _ rows: [[ExportCell]]) throws -> String {
        var text = ""
        var writer = ExportWriter(format: format, columns: ["name", "amount"], header: ["report": "test"]) { text += $0 }
        try writer.begin()
        for row in rows { try writer.row(row) }
        try writer.end()
        return text
    }

    @Test func csvQuotesWhatMustBeQuotedAndEndsRecordsInCRLF() throws {
        let text = try written(.csv, [[.text("Jane \"JJ\" Doe, Esq."), .integer(-500)], [.text("two\nlines"), .integer(0)]])
        #expect(text == "name,amount\r\n\"Jane \"\"JJ\"\" Doe, Esq.\",-500\r\n\"two\nlines\",0\r\n")
    }

    @Test(arguments: ["=HYPERLINK(\"http://evil.example\")", "+1+2", "-2+3", "@SUM(A1)", "\tTAB", "\r\nCR"])
    func aCellASpreadsheetWouldRunIsEscaped(text: String) throws {
        let field = try written(.csv, [[.text(text), .integer(1)]]).components(separatedBy: "\r\n")[1]
        #expect(field.hasPrefix("'") || field.hasPrefix("\"'"), "\(field)")
        // Numbers the shop writes are numbers: a refund's -500 stays a number a spreadsheet adds.
        #expect(try written(.csv, [[.text("x"), .integer(-500)]]).hasSuffix("x,-500\r\n"))
    }

    @Test func jsonIsOneDocumentWrittenARowAtATime() throws {
        let text = try written(.json, [[.text("=A1 \"q\"\u{1}"), .integer(7)], [.text("b"), .integer(8)]])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 1 && document["report"] as? String == "test")
        let rows = try #require(document["rows"] as? [[String: Any]])
        #expect(rows.count == 2 && rows[0]["name"] as? String == "=A1 \"q\"\u{1}" && rows[1]["amount"] as? Int == 8, "JSON is not escaped as CSV is")
        #expect(try written(.json, []).contains("\"rows\": [\n\n]"))
    }

    @Test func thePeriodIsWholeUTCDaysBothIncluded() throws {
        let today = Date(timeIntervalSince1970: 1_796_040_000)  // 2026-11-30 12:00 UTC
        let period = try ExportCommands.period(from: "2026-11-01", to: "2026-11-30", today: today).get()
        #expect(UTCTime(period.start).iso8601 == "2026-11-01T00:00:00Z" && UTCTime(period.end).iso8601 == "2026-12-01T00:00:00Z")
        let year = try ExportCommands.period(from: nil, to: nil, today: today).get()
        #expect(UTCTime(year.start).calendarDate == "2025-12-01" && UTCTime(year.end).calendarDate == "2026-12-01", "365 days to today")
        func problem(_ from: String?, _ to: String?) -> String? {
            if case .failure(let problem) = ExportCommands.period(from: from, to: to, today: today) { return problem.message }
            return nil
        }
        #expect(problem("2026-02-31", nil) == "--from 2026-02-31 is not a day: write it as YYYY-MM-DD, such as 2026-11-30")
        #expect(problem(nil, "tomorrow") == "--to tomorrow is not a day: write it as YYYY-MM-DD, such as 2026-11-30")
        #expect(problem("2026-12-01", "2026-11-30") == "--from comes after --to: the period would hold no day")
        #expect(problem("1900-01-01", "2026-11-30") == "the period is over 3660 days: export it in parts of ten years or less")
    }

    @Test func aRefundGivesBackTaxInProportionToItsOrdersTotal() {
        func refund(_ amount: Int64, tax: Int64, total: Int64) -> SettledRefund {
            SettledRefund(
                id: "RF-000001", orderNumber: "SF-000001", kind: .refund, amount: Money(minorUnits: amount, currency: .usd), reason: "",
                actor: "merchant:ops", settledAt: Date(), orderTax: Money(minorUnits: tax, currency: .usd),
                orderTotal: Money(minorUnits: total, currency: .usd), tax: TaxPolicy(basisPoints: 725))
        }
        #expect(refund(8_795, tax: 595, total: 8_795).taxPart.minorUnits == 595, "all of it: all the tax")
        #expect(refund(1_000, tax: 595, total: 8_795).taxPart.minorUnits == 68, "595 × 1000 / 8795 = 67.65, half up")
        #expect(refund(100, tax: 0, total: 0).taxPart.minorUnits == 0)
    }
}
