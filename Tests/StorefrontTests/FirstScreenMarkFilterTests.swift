import Testing

@testable import ShopWebFront

/// What a session started with its page relays to its socket when the shop writes its first screen's cells and mark
/// only after the page went: everything but those two sequences, however the output is cut into chunks.
@Suite("The first screen's sequences taken out of a relayed session")
struct FirstScreenMarkFilterTests {
    static let before = "\u{1B}[?2026h\u{1B}[1;1H\u{1B}[38;5;231mStorefront\u{1B}[?2026l"
    static let sequences = "\u{1B}]7766;storefront-first-screen-cells;4x1\u{1E}-1,-1,0\u{1E}0,0,2,ab\u{07}\u{1B}]7766;storefront-first-screen\u{07}"
    static let after = "\u{1B}[?2026h\u{1B}[2;1H› Tea\u{1B}[?2026l"

    /// `text` through a filter in chunks cut at `cuts`.
    static func passed(_ text: String, cutAt cuts: [Int], finished: Bool = false) -> String {
        let bytes = Array(text.utf8)
        let filter = FirstScreenMarkFilter(finished: finished)
        var out: [UInt8] = []
        var from = 0
        for cut in cuts + [bytes.count] where cut >= from {
            out += filter.pass(Array(bytes[from..<cut]))
            from = cut
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func theCellsAndTheMarkAreTakenOutWhereverTheChunksAreCut() {
        let text = Self.before + Self.sequences + Self.after
        let count = text.utf8.count
        for cut in 0...count {
            #expect(Self.passed(text, cutAt: [cut]) == Self.before + Self.after, "cut at \(cut)")
        }
        var random = SeededBytes(seed: 77)
        for _ in 0..<300 {
            let cuts = (0..<4).map { _ in Int(random.next() % UInt64(count + 1)) }.sorted()
            #expect(Self.passed(text, cutAt: cuts) == Self.before + Self.after, "cuts at \(cuts)")
        }
    }

    @Test func theMarkAloneIsTakenOutAndOnlyTheFirstTime() {
        let mark = "\u{1B}]7766;storefront-first-screen\u{07}"
        #expect(Self.passed(Self.before + mark + Self.after + mark, cutAt: [Self.before.utf8.count + 5]) == Self.before + Self.after + mark)
    }

    @Test func whatOnlyLooksLikeTheirStartPassesWhole() {
        // Another OSC, a cells' sequence broken by a control character, and one cut short by the session's end (held,
        // never sent: it was never going to be drawn).
        let other = "\u{1B}]7766;storefront-other\u{07}"
        #expect(Self.passed(Self.before + other + Self.after, cutAt: [Self.before.utf8.count + 9]) == Self.before + other + Self.after)
        let broken = "\u{1B}]7766;storefront-first-screen-cells;4x1\u{1B}[0m"
        #expect(Self.passed(broken + Self.after, cutAt: [20]) == broken + Self.after)
        #expect(Self.passed(Self.before + "\u{1B}]7766;storefront-first-screen-cells;4x", cutAt: []) == Self.before)
        // Once the mark came before the socket, nothing is looked at.
        #expect(Self.passed(Self.before + Self.sequences, cutAt: [3], finished: true) == Self.before + Self.sequences)
    }
}
