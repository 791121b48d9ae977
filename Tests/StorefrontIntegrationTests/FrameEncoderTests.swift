import Foundation
import LiveObjects
import StorefrontUI
import Testing

@testable import TerminalNCurses

/// The shop's own terminal output: frames encoded as ANSI bytes, checked byte for byte where the choice
/// matters and, for many random frames, played through an independent VT emulator (pyte).
@Suite("Frame encoder", .ownThreads)
struct FrameEncoderTests {
    /// The widths a UTF-8 C library gives the characters these tests use.
    static let width: @Sendable (UInt32) -> Int = { code in
        switch code {
        case 0x300...0x36F: 0
        case 0x4E00...0x9FFF: 2
        default: 1
        }
    }

    static func encoder(_ dialect: AnsiDialect = .xterm(.color256)) -> FrameEncoder {
        FrameEncoder(dialect: dialect, width: width)
    }

    static func frame(_ size: Size = Size(columns: 20, rows: 3), _ draw: (inout Frame) -> Void) -> Frame {
        var frame = Frame(size: size)
        draw(&frame)
        return frame
    }

    static func text(_ encoder: FrameEncoder) -> String { String(decoding: encoder.output, as: UTF8.self) }

    @Test func aFirstFrameResetsClearsAndWritesOnlyWhatIsNotBlank() {
        var encoder = Self.encoder()
        encoder.encode(from: nil, to: Self.frame { $0.put("Hi", column: 2, row: 1, style: Style(.price)) })
        #expect(Self.text(encoder) == "\u{1B}(B\u{1B}[m\u{1B}[H\u{1B}[2J\u{1B}[2;3H\u{1B}[38;5;114mHi")
    }

    /// The encoder asks the C library a scalar's width once while it stays remembered; two scalars that share a slot
    /// (the same low byte) each get their own width, and a width the library does not know (-1) is remembered too.
    @Test func aScalarsWidthIsAskedOnceAndScalarsSharingASlotKeepTheirOwn() {
        let asked = Asked()
        let widths = ScalarWidths { code in
            asked.codes.append(code)
            return code == 0x4E80 ? 2 : code == 0xE080 ? -1 : 1
        }
        #expect([0x2580, 0x2580, 0x4E80, 0x4E80, 0xE080, 0xE080, 0x2580].map { widths.width(of: $0) } == [1, 1, 2, 2, -1, -1, 1])
        #expect(asked.codes == [0x2580, 0x4E80, 0xE080, 0x2580], "asked again only after another scalar took its slot")
    }

    /// The scalars a measure was asked for, in order.
    final class Asked: LiveObject {
        var codes: [UInt32] = []
    }

    @Test func aSessionAskedForSynchronizedOutputMarksEachFrameAndNothingWhenNothingChanged() {
        var encoder = FrameEncoder(dialect: .xterm(.color256), marksFrames: true, width: Self.width)
        let first = Self.frame { $0.put("Hi", column: 2, row: 1, style: Style(.price)) }
        encoder.encode(from: nil, to: first)
        #expect(Self.text(encoder) == "\u{1B}[?2026h\u{1B}(B\u{1B}[m\u{1B}[H\u{1B}[2J\u{1B}[2;3H\u{1B}[38;5;114mHi\u{1B}[?2026l")
        encoder.encode(from: first, to: first)
        #expect(encoder.output.isEmpty, "no marks around nothing")
        #expect(FrameEncoder.marksFrames(in: ["STOREFRONT_SYNCHRONIZED_OUTPUT": "1"]))
        #expect(!FrameEncoder.marksFrames(in: [:]) && !FrameEncoder.marksFrames(in: ["STOREFRONT_SYNCHRONIZED_OUTPUT": "0"]))
    }

    @Test func aSecondFrameWritesOnlyTheChangedCellsAndNothingWhenNoneChanged() {
        var encoder = Self.encoder()
        let first = Self.frame { $0.put("Hello", column: 0, row: 0) }
        let second = Self.frame { $0.put("Help!", column: 0, row: 0) }
        encoder.encode(from: nil, to: first)
        encoder.encode(from: first, to: second)
        // The cursor sits after "Hello": back to the changed cells by CUP, then the same pen goes on.
        #expect(Self.text(encoder) == "\u{1B}[1;4Hp!")
        encoder.encode(from: second, to: second)
        #expect(encoder.output.isEmpty)
    }

    @Test func nearbyChangesReprintTheCellsBetweenOrMoveForwardWhicheverIsShorter() {
        var encoder = Self.encoder()
        let first = Self.frame { $0.put("a b c" + String(repeating: "x", count: 10) + "d", column: 0, row: 0) }
        let second = Self.frame { $0.put("A B c" + String(repeating: "x", count: 10) + "D", column: 0, row: 0) }
        encoder.encode(from: nil, to: first)
        encoder.encode(from: first, to: second)
        // " " between A and B is reprinted (1 byte); the 12 cells before D are skipped with CUF.
        #expect(Self.text(encoder) == "\u{1B}[HA B\u{1B}[12CD")
    }

    @Test func theNextRowsFirstColumnIsReachedWithCarriageReturnAndLineFeed() {
        var encoder = Self.encoder()
        let first = Self.frame {
            $0.put("ab", column: 18, row: 0)
            $0.put("c", column: 0, row: 1)
        }
        let second = Self.frame {
            $0.put("aB", column: 18, row: 0)
            $0.put("C", column: 0, row: 1)
        }
        encoder.encode(from: nil, to: first)
        encoder.encode(from: first, to: second)
        // Writing the last column leaves the cursor waiting to wrap; CR cancels that, so CR LF still reaches the next row.
        #expect(Self.text(encoder) == "\u{1B}[1;20HB\r\nC")
        let third = Self.frame {
            $0.put("aB", column: 18, row: 0)
            $0.put("C", column: 5, row: 1)
            $0.put("D", column: 0, row: 2)
        }
        encoder.encode(from: second, to: third)
        #expect(Self.text(encoder) == "\u{1B}[2H \u{1B}[4CC\r\nD")
    }

    @Test func blanksToTheEndOfARowAreErasedAndALongRunInsideItToo() {
        var encoder = Self.encoder()
        let full = Self.frame { $0.put(String(repeating: "x", count: 20), column: 0, row: 0) }
        encoder.encode(from: nil, to: full)
        let cleared = Self.frame {
            $0.put("x", column: 0, row: 0)
            $0.put("x", column: 15, row: 0)
        }
        encoder.encode(from: full, to: cleared)
        // ECH leaves the cursor where it was, so the next change is 15 columns on.
        #expect(Self.text(encoder) == "\u{1B}[1;2H\u{1B}[14X\u{1B}[15C\u{1B}[K")
    }

    @Test func aColouredBackgroundIsErasedOnlyWhereTheTerminalErasesInIt() {
        let selected = Self.frame { $0.fill(row: 1, style: Style(.selection)) }
        var bce = Self.encoder()
        bce.encode(from: Self.frame { _ in }, to: selected)
        #expect(Self.text(bce) == "\u{1B}[2H\u{1B}[0;1;38;5;231;48;5;25m\u{1B}[K")
        var dialect = AnsiDialect.xterm(.color256)
        dialect.erasesInBackground = false
        var plain = Self.encoder(dialect)
        plain.encode(from: Self.frame { _ in }, to: selected)
        #expect(Self.text(plain) == "\u{1B}[2H\u{1B}[0;1;38;5;231;48;5;25m" + String(repeating: " ", count: 20))
    }

    @Test func aPenChangeSendsTheShorterOfTheDifferenceAndAResetWithTheWholePen() {
        let header = RoleLook(foreground: 231, background: 24, bold: true)
        let selection = RoleLook(foreground: 231, background: 25, bold: true)
        #expect(String(decoding: FrameEncoder.sgr(from: header, to: selection), as: UTF8.self) == "\u{1B}[48;5;25m")
        #expect(String(decoding: FrameEncoder.sgr(from: selection, to: RoleLook()), as: UTF8.self) == "\u{1B}[0m")
        #expect(String(decoding: FrameEncoder.sgr(from: RoleLook(bold: true, dim: true), to: RoleLook(dim: true)), as: UTF8.self) == "\u{1B}[0;2m")
        #expect(
            String(decoding: FrameEncoder.sgr(from: RoleLook(foreground: 114, bold: true), to: RoleLook(foreground: 114)), as: UTF8.self)
                == "\u{1B}[22m")
        #expect(String(decoding: FrameEncoder.sgr(from: nil, to: RoleLook(foreground: 2)), as: UTF8.self) == "\u{1B}[0;32m")
    }

    @Test func aBlankIsDrawnInWhicheverPenShowsTheSameBackground() {
        var encoder = Self.encoder()
        let first = Self.frame { $0.put("ab", column: 0, row: 0) }
        let second = Self.frame {
            $0.put("$1", column: 0, row: 0, style: Style(.price))
            $0.put(" ", column: 2, row: 0)
            $0.put("x", column: 3, row: 0)
        }
        encoder.encode(from: nil, to: first)
        encoder.encode(from: first, to: second)
        // The blank after "$1" keeps the price pen: its colour does not show on a blank.
        #expect(Self.text(encoder) == "\u{1B}[H\u{1B}[38;5;114m$1 \u{1B}[0mx")
    }

    @Test func wideCharactersAdvanceTwoColumnsAndAClusterIsWrittenWhole() {
        var encoder = Self.encoder()
        encoder.encode(from: nil, to: Self.frame { $0.put("中x e\u{301}y", column: 0, row: 0) })
        // The clear left the cursor home, where the first cell goes.
        #expect(Self.text(encoder).hasSuffix("\u{1B}[2J中x e\u{301}y"))
    }

    @Test func aCellTheCLibraryMeasuresOtherwiseIsPaddedSoTheRowStaysAligned() {
        // A C library that does not know the character (-1) gets the placeholder and a blank for the second column.
        var encoder = FrameEncoder(dialect: .xterm(.color256)) { $0 < 0x80 ? 1 : -1 }
        encoder.encode(from: nil, to: Self.frame { $0.put("中x", column: 0, row: 0) })
        #expect(Self.text(encoder).hasSuffix("\u{1B}[2J\u{FFFD} x"))
    }

    @Test func aScrolledBandIsMovedWithLineDeletionAndInsertionWhenThatIsShorter() {
        let size = Size(columns: 20, rows: 6)
        let list = (0..<8).map { "product number \($0)" }
        let first = Self.frame(size) { frame in
            for row in 0..<5 { frame.put(list[row], column: 0, row: row) }
            frame.put("footer", column: 0, row: 5)
        }
        let second = Self.frame(size) { frame in
            for row in 0..<5 { frame.put(list[row + 1], column: 0, row: row) }
            frame.put("footer", column: 0, row: 5)
        }
        var encoder = Self.encoder()
        encoder.encode(from: nil, to: first)
        encoder.encode(from: first, to: second)
        // Up one row within rows 1-5: delete the top line, insert one above the footer, draw the new last row.
        #expect(Self.text(encoder) == "\u{1B}[H\u{1B}[M\u{1B}[5H\u{1B}[Lproduct number 5")
        encoder.encode(from: second, to: first)
        #expect(Self.text(encoder) == "\u{1B}[5H\u{1B}[M\u{1B}[H\u{1B}[Lproduct number 0")
        var withoutLines = AnsiDialect.xterm(.color256)
        withoutLines.movesLines = false
        var drawing = Self.encoder(withoutLines)
        drawing.encode(from: first, to: second)
        #expect(!Self.text(drawing).contains("\u{1B}[M"), "a terminal without IL and DL gets the rows drawn")
    }

    @Test func aScrolledBandIsDrawnWhenDrawingItIsShorter() {
        // Rows of one letter moved up by one: deleting and inserting lines (13 bytes and the new row) loses
        // to writing the three letters again.
        let size = Size(columns: 20, rows: 3)
        let first = Self.frame(size) { frame in for (row, letter) in ["a", "b", "a"].enumerated() { frame.put(letter, column: 0, row: row) } }
        let second = Self.frame(size) { frame in for (row, letter) in ["b", "a", "b"].enumerated() { frame.put(letter, column: 0, row: row) } }
        #expect(second.scrollBand(from: first) != nil, "the rows did move")
        var encoder = Self.encoder()
        encoder.encode(from: nil, to: first)
        encoder.encode(from: first, to: second)
        #expect(Self.text(encoder) == "\u{1B}[Hb\r\na\r\nb")
    }

    @Test func forgettingTheTerminalsStateAddressesTheCursorAndSetsThePenAgain() {
        var encoder = Self.encoder()
        let first = Self.frame { $0.put("ab", column: 0, row: 0, style: Style(.price)) }
        let second = Self.frame { $0.put("ac", column: 0, row: 0, style: Style(.price)) }
        encoder.encode(from: nil, to: first)
        encoder.forget()
        encoder.encode(from: first, to: second)
        #expect(Self.text(encoder) == "\u{1B}[1;2H\u{1B}[0;38;5;114mc")
    }

    @Test(
        "terminals whose terminfo entry speaks ANSI get the shop's own bytes",
        arguments: ["xterm-256color", "xterm", "screen-256color", "tmux-256color", "linux"])
    @MainActor func ansiTerminalsAreWrittenDirectly(term: String) throws {
        let screen = try OffscreenCurses(size: Size(columns: 40, rows: 12), term: term, direct: true)
        defer { screen.close() }
        let before = screen.bytesWritten
        screen.prepare(Self.frame(Size(columns: 40, rows: 12)) { $0.put("Storefront", column: 1, row: 0, style: Style(.header)) })
        screen.send()
        #expect(screen.bytesWritten > before)
    }

    @Test("a terminal with padding or other sequences is left to curses", arguments: ["vt100", "vt52", "ansi"])
    @MainActor func otherTerminalsAreLeftToCurses(term: String) {
        #expect(throws: TerminalError.startFailed("\(term) does not pass the ANSI check")) {
            _ = try OffscreenCurses(size: Size(columns: 40, rows: 12), term: term, direct: true)
        }
    }
}
