import Foundation
import ShopBundledCatalog
import ShopModels
import ShopPictures
import Testing

@testable import StorefrontUI
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

/// Pictures drawn as pixels: each written once at its slot after the cells, a sixel one gone blanked cell by cell,
/// a kitty one deleted with every placement and the others placed again.
@Suite("Frame encoder: pictures as pixels", .ownThreads)
struct FrameEncoderPixelTests {
    static func frame(_ support: PictureSupport, _ graphics: [PictureSlot: [UInt8]]) -> Frame {
        var frame = Frame(size: Size(columns: 20, rows: 6))
        frame.pictureSupport = support
        frame.pictureSlots = Array(graphics.keys)
        frame.pictureGraphics = graphics
        return frame
    }

    @Test func aSixelPictureIsDrawnOnceAndBlankedWhenGone() {
        let slot = PictureSlot(digest: "a", column: 2, row: 1, columns: 4, rows: 2)
        let shown = Self.frame(.sixel, [slot: Array("<sixel>".utf8)])
        var encoder = FrameEncoder(dialect: .xterm(.color256)) { _ in 1 }
        encoder.encode(from: nil, to: shown)
        #expect(String(decoding: encoder.output, as: UTF8.self).hasSuffix("\u{1B}[2;3H<sixel>"))
        encoder.encode(from: shown, to: shown)
        #expect(encoder.output.isEmpty, "drawn once")
        let gone = Self.frame(.sixel, [:])
        encoder.encode(from: shown, to: gone)
        #expect(String(decoding: encoder.output, as: UTF8.self) == "\u{1B}[2;3H\u{1B}[m\u{1B}[4X\u{1B}[3;3H\u{1B}[m\u{1B}[4X")
    }

    @Test func aKittyPictureGoneDeletesThePlacementsAndPlacesTheOthersAgain() {
        let first = PictureSlot(digest: "a", column: 0, row: 0, columns: 4, rows: 2)
        let second = PictureSlot(digest: "b", column: 10, row: 0, columns: 4, rows: 2)
        let both = Self.frame(.kitty, [first: Array("<a>".utf8), second: Array("<b>".utf8)])
        var encoder = FrameEncoder(dialect: .xterm(.color256)) { _ in 1 }
        encoder.encode(from: nil, to: both)
        let one = Self.frame(.kitty, [second: Array("<b>".utf8)])
        encoder.encode(from: both, to: one)
        #expect(String(decoding: encoder.output, as: UTF8.self) == "\u{1B}_Ga=d,d=A\u{1B}\\\u{1B}[1;11H<b>")
    }

    /// libchafa's kitty stream: transmitted and placed at once, in chunks of base64 at most 4096 bytes each.
    @Test func theKittyStreamIsWellFormed() throws {
        let picture = try PictureDecoder.decode(BundledPictures.bytes(of: "pictures/rubber-duck.png")!, limits: .display)
        let stream = String(decoding: try #require(picture.graphics(columns: 20, rows: 8, cellWidth: 10, cellHeight: 20, in: .kitty)), as: UTF8.self)
        let chunks = stream.components(separatedBy: "\u{1B}_G").dropFirst()
        #expect(chunks.count >= 2)
        let control = try #require(chunks.first?.components(separatedBy: "\u{1B}\\").first)
        #expect(control.contains("a=T") && control.contains("f=") && control.contains("s=") && control.contains("v="), "\(control)")
        for chunk in chunks {
            let body = chunk.components(separatedBy: "\u{1B}\\").first ?? ""
            let parts = body.split(separator: ";", maxSplits: 1)
            let payload = parts.count == 2 ? String(parts[1]) : ""
            #expect(payload.utf8.count <= 4096 && Data(base64Encoded: payload) != nil, "base64 in chunks of at most 4096")
        }
        #expect(chunks.last?.hasPrefix("m=0") == true || chunks.last?.contains(",m=0") == true || chunks.count == 1)
    }
}
