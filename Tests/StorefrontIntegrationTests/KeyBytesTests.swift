import Foundation
import StorefrontUI
import Testing

@testable import TerminalNCurses

/// A worker's sessions, and a local terminal that speaks ANSI, decode their keys without curses: every sequence a real
/// terminal sends for the shop's keys reads as curses' decoding of it does, in both cursor modes, cut anywhere by a read.
@MainActor
@Suite("Keys decoded without curses", .ownThreads)
struct KeyBytesTests {
    private func inputs(_ text: String) -> [NCursesScreen.Input] {
        var keys = KeyBytes()
        return NCursesScreen.inputs(from: keys.decode(Array(text.utf8)) + keys.flush())
    }

    @Test func arrowsHomeEndAndPagesInEveryFormTerminalsSendThem() {
        let forms: [(String, Key)] = [
            ("\u{1B}[A", .up), ("\u{1B}OA", .up), ("\u{1B}[1;5A", .up), ("\u{1B}[B", .down), ("\u{1B}OB", .down),
            ("\u{1B}[C", .right), ("\u{1B}OC", .right), ("\u{1B}[D", .left), ("\u{1B}OD", .left),
            ("\u{1B}[H", .home), ("\u{1B}OH", .home), ("\u{1B}[1~", .home), ("\u{1B}[7~", .home),
            ("\u{1B}[F", .end), ("\u{1B}OF", .end), ("\u{1B}[4~", .end), ("\u{1B}[8~", .end),
            ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown), ("\u{1B}OM", .enter),
        ]
        for (sequence, key) in forms {
            #expect(inputs(sequence) == [.key(key)], "\(sequence.debugDescription)")
        }
    }

    @Test func textControlKeysAndUnicodeReadAsCursesReadsThem() {
        #expect(
            inputs("ab\r\t\u{7F}\u{08}") == [
                .key(.character("a")), .key(.character("b")), .key(.enter), .key(.tab), .key(.backspace), .key(.backspace),
            ])
        #expect(inputs("\u{03}") == [.interrupt])
        #expect(inputs("\u{0C}") == [.redraw])
        #expect(inputs("é€🛒") == [.key(.character("é")), .key(.character("€")), .key(.character("🛒"))])
        #expect(inputs("\u{1B}") == [.key(.escape)], "a lone ESC, once the delay is over, is the Escape key")
        #expect(inputs("\u{1B}x") == [.key(.escape), .key(.character("x"))], "Alt-x is Escape then x, as curses reads it")
    }

    @Test func keysTheShopDoesNotBindAreDroppedWhole() {
        for sequence in ["\u{1B}[3~", "\u{1B}[2~", "\u{1B}OP", "\u{1B}[15~", "\u{1B}[[A", "\u{1B}[I", "\u{1B}[Z"] {
            #expect(inputs(sequence + "q") == [.key(.character("q"))], "\(sequence.debugDescription) then q")
        }
    }

    @Test func mouseReportsAndLateAnswersAreWhatCursesMakesOfThem() {
        #expect(inputs("\u{1B}[<0;11;6M") == [.click(column: 10, row: 5)])
        #expect(inputs("\u{1B}[<0;11;6m") == [], "a release")
        #expect(inputs("\u{1B}[<65;1;1M") == [.wheel(down: true)])
        #expect(
            inputs("\u{1B}[?62;22c?") == [.terminalSaid(.deviceAttributes([62, 22])), .key(.character("?"))],
            "a DA1 answer is the terminal's, not the help key")
        // The old encoding, from a terminal without the SGR form: each byte its value plus 32.
        #expect(inputs("\u{1B}[M +&") == [.click(column: 10, row: 5)])
        #expect(inputs("\u{1B}[M#+&") == [], "its release")
        #expect(inputs("\u{1B}[Ma!!") == [.wheel(down: true)])
        #expect(inputs("\u{1B}[M\u{1F}!!q") == [.key(.character("q"))], "a malformed one is dropped whole")
    }

    @Test func aReaderTakesEveryWaitingByteAndDropsMouseReportsWithTheMouseOff() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let sent = Array("j\u{1B}[<0;11;6Mk\u{1B}OB".utf8)
        #expect(write(ends[1], sent, sent.count) == sent.count)
        close(ends[1])
        var off = KeyReader(typedAhead: Array("q".utf8), mouse: false)
        let read = off.read(ends[0], blocking: true)
        #expect(read.inputs == [.key(.character("q")), .key(.character("j")), .key(.character("k")), .key(.down)])
        #expect(!read.isGone, "a blocking descriptor is read as far as it holds, never to its end")
        var on = KeyReader(typedAhead: Array("\u{1B}[<0;11;6M".utf8), mouse: true)
        #expect(on.read(ends[0], blocking: true).inputs == [.click(column: 10, row: 5)], "typed ahead, with the mouse on")
    }

    @Test func aSequenceCutByAReadWaitsForItsRest() {
        var keys = KeyBytes()
        #expect(keys.decode(Array("j\u{1B}[".utf8)).map(\.value) == [UInt32(UInt8(ascii: "j"))])
        #expect(keys.isWaiting)
        let rest = keys.decode(Array("5~k".utf8))
        #expect(NCursesScreen.inputs(from: rest) == [.key(.pageUp), .key(.character("k"))])
        #expect(!keys.isWaiting)
        #expect(keys.decode([0xE2, 0x82]).isEmpty, "half a UTF-8 character waits too")
        #expect(NCursesScreen.inputs(from: keys.decode([0xAC])) == [.key(.character("€"))])
        _ = keys.decode(Array("\u{1B}[<0;3".utf8))
        #expect(keys.isWaiting, "so does half a mouse report")
        #expect(NCursesScreen.inputs(from: keys.decode(Array(";4M".utf8))) == [.click(column: 2, row: 3)])
    }
}
