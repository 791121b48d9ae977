import ShopModels
import StorefrontUI
import Testing

@testable import TerminalNCurses

/// A picture's cells carry their own colours: the encoder sets both from a role's pen, and only the one that changed
/// from another picture cell's.
@Suite("Frame encoder: pictures", .ownThreads)
struct FrameEncoderPictureTests {
    static func frame(_ cells: [MosaicCell]) -> Frame {
        var frame = Frame(size: Size(columns: 20, rows: 3))
        frame.put("Hi", column: 0, row: 0, style: Style(.price))
        frame.draw(
            PictureMosaic(columns: cells.count, rows: 1, cells: cells), in: PictureSlot(digest: "", column: 3, row: 0, columns: cells.count, rows: 1))
        return frame
    }

    @Test func aPicturesCellsAreWrittenInTheirOwnColoursChangingOnlyWhatChanged() {
        let upper = UInt32(0x2580)
        let lower = UInt32(0x2584)
        let first = Self.frame([
            MosaicCell(symbol: upper, foreground: 196, background: 21), MosaicCell(symbol: upper, foreground: 196, background: 21),
            MosaicCell(symbol: lower, foreground: 46, background: 21),
        ])
        #expect(first.packed[3].pictureColors! == (196, 21))
        var encoder = FrameEncoder(dialect: .xterm(.color256)) { _ in 1 }
        encoder.encode(from: nil, to: first)
        #expect(
            String(decoding: encoder.output, as: UTF8.self)
                == "\u{1B}(B\u{1B}[m\u{1B}[H\u{1B}[2J\u{1B}[38;5;114mHi \u{1B}[0;38;5;196;48;5;21m▀▀\u{1B}[38;5;46m▄")
        let second = Self.frame([
            MosaicCell(symbol: upper, foreground: 196, background: 21), MosaicCell(symbol: upper, foreground: 196, background: 21),
            MosaicCell(symbol: lower, foreground: 46, background: 22),
        ])
        encoder.encode(from: first, to: second)
        #expect(String(decoding: encoder.output, as: UTF8.self) == "\u{1B}[1;6H\u{1B}[48;5;22m▄")
        // Text after the picture is written in its role's pen in full: nothing of the picture's colours stays.
        var third = second
        third.put("x", column: 10, row: 0, style: Style(.price))
        encoder.encode(from: second, to: third)
        let written = String(decoding: encoder.output, as: UTF8.self)
        #expect(written.hasSuffix("x"))
        #expect(written.contains("\u{1B}[0;38;5;114m") || written.contains("\u{1B}[m\u{1B}[38;5;114m"), "\(written.debugDescription)")
    }
}
