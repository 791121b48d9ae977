import Foundation
import PropertyBased
import ShopModels
import Testing

@Suite("UTC time by arithmetic")
struct UTCTimeTests {
    @Test func formatsAKnownMoment() {
        // 2024-02-29T23:59:58.250Z: a leap day, the last seconds of it
        let time = UTCTime(Date(timeIntervalSince1970: 1_709_251_198.25))
        #expect(time.iso8601 == "2024-02-29T23:59:58Z")
        #expect(time.iso8601Milliseconds == "2024-02-29T23:59:58.250Z")
        #expect(time.minutes == "2024-02-29 23:59")
    }

    @Test func countsBackwardsBeforeTheEpoch() {
        #expect(UTCTime(Date(timeIntervalSince1970: -0.001)).iso8601Milliseconds == "1969-12-31T23:59:59.999Z")
        #expect(UTCTime(Date(timeIntervalSince1970: -86_400 * 365)).iso8601 == "1969-01-01T00:00:00Z")
    }

    /// Foundation's Gregorian calendar in GMT is the oracle, from 1583 (before that it counts Julian dates) to 6000.
    @Test func agreesWithFoundationsCalendar() async {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let seconds = Gen.int(in: -12_200_000_000...127_000_000_000)
        let milliseconds = Gen.int(in: 0...999)
        await propertyCheck(count: 2000, input: seconds, milliseconds) { seconds, milliseconds in
            let date = Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000 + 0.0001)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let time = UTCTime(date)
            let mine: [Int] = [time.year, time.month, time.day, time.hour, time.minute, time.second]
            let foundations: [Int] = [parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!]
            #expect(mine == foundations, "\(seconds)")
            #expect(time.millisecond == milliseconds)
        }
    }
}
