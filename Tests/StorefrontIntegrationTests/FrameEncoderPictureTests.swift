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
/// a kitty one sent once by id, deleted with every placement and the others placed again by id.
@Suite("Frame encoder: pictures as pixels", .ownThreads)
struct FrameEncoderPixelTests {
    static func frame(_ support: PictureSupport, _ graphics: [PictureSlot: PictureGraphics]) -> Frame {
        var frame = Frame(size: Size(columns: 20, rows: 6))
        frame.pictureSupport = support
        frame.pictureSlots = Array(graphics.keys)
        frame.pictureGraphics = graphics
        return frame
    }

    @Test func aSixelPictureIsDrawnOnceAndBlankedWhenGone() {
        let slot = PictureSlot(digest: "a", column: 2, row: 1, columns: 4, rows: 2)
        let shown = Self.frame(.sixel, [slot: .inline(Array("<sixel>".utf8))])
        var encoder = FrameEncoder(dialect: .xterm(.color256)) { _ in 1 }
        encoder.encode(from: nil, to: shown)
        #expect(String(decoding: encoder.output, as: UTF8.self).hasSuffix("\u{1B}[2;3H<sixel>"))
        encoder.encode(from: shown, to: shown)
        #expect(encoder.output.isEmpty, "drawn once")
        let gone = Self.frame(.sixel, [:])
        encoder.encode(from: shown, to: gone)
        #expect(String(decoding: encoder.output, as: UTF8.self) == "\u{1B}[2;3H\u{1B}[m\u{1B}[4X\u{1B}[3;3H\u{1B}[m\u{1B}[4X")
    }

    static func kitty(_ digest: String, payload: Int = 10) -> PictureGraphics {
        .kitty(
            KittyImage(digest: digest, width: 8, height: 4, payload: Array(repeating: UInt8(ascii: "A"), count: payload)),
            placement: KittyPlacement(column: 0, row: 0, columns: 4, rows: 2))
    }

    @Test func aKittyImageIsSentOnceAndPlacedAgainByIDAfterThePlacementsAreDeleted() {
        let first = PictureSlot(digest: "0000000a", column: 0, row: 0, columns: 4, rows: 2)
        let second = PictureSlot(digest: "0000000b", column: 10, row: 0, columns: 4, rows: 2)
        let both = Self.frame(.kitty, [first: Self.kitty(first.digest), second: Self.kitty(second.digest)])
        var encoder = FrameEncoder(dialect: .xterm(.color256)) { _ in 1 }
        encoder.encode(from: nil, to: both)
        let sent = String(decoding: encoder.output, as: UTF8.self)
        #expect(
            sent.hasSuffix(
                "\u{1B}_Ga=t,i=10,f=32,s=8,v=4,o=z,q=2,m=0;AAAAAAAAAA\u{1B}\\\u{1B}[1;1H\u{1B}_Ga=p,i=10,c=4,r=2,C=1,q=2\u{1B}\\"
                    + "\u{1B}_Ga=t,i=11,f=32,s=8,v=4,o=z,q=2,m=0;AAAAAAAAAA\u{1B}\\\u{1B}[1;11H\u{1B}_Ga=p,i=11,c=4,r=2,C=1,q=2\u{1B}\\"),
            "\(sent.debugDescription)")

        // One gone: every placement deleted, the images kept (lowercase d=a), the other placed again by id alone.
        let one = Self.frame(.kitty, [second: Self.kitty(second.digest)])
        encoder.encode(from: both, to: one)
        #expect(
            String(decoding: encoder.output, as: UTF8.self)
                == "\u{1B}_Ga=d,d=a,q=2\u{1B}\\\u{1B}[1;11H\u{1B}_Ga=p,i=11,c=4,r=2,C=1,q=2\u{1B}\\")
        // Back: placed by id, not sent again.
        encoder.encode(from: one, to: both)
        #expect(String(decoding: encoder.output, as: UTF8.self) == "\u{1B}[1;1H\u{1B}_Ga=p,i=10,c=4,r=2,C=1,q=2\u{1B}\\")
        #expect(
            String(decoding: encoder.releasingPictures, as: UTF8.self)
                == "\u{1B}_Ga=d,d=I,i=10,q=2\u{1B}\\\u{1B}_Ga=d,d=I,i=11,q=2\u{1B}\\")
    }

    @Test func anImageIDComesFromTheDigestAndTheNextFreeOneWhereTwoBeginAlike() {
        #expect(FrameEncoder.kittyID(for: "0000002a" + String(repeating: "f", count: 56), besides: []) == 42)
        #expect(FrameEncoder.kittyID(for: "0000002a", besides: [42, 43]) == 44)
        #expect(FrameEncoder.kittyID(for: "00000000", besides: []) == 1)
    }

    /// kitty's limit: the base64 comes in chunks of at most 4,096 bytes, the first carrying the control data, the
    /// last `m=0`.
    @Test func aLargeImageIsSentInChunksOfAtMost4096Bytes() throws {
        let slot = PictureSlot(digest: "0000000c", column: 0, row: 0, columns: 4, rows: 2)
        var encoder = FrameEncoder(dialect: .xterm(.color256)) { _ in 1 }
        encoder.encode(from: nil, to: Self.frame(.kitty, [slot: Self.kitty(slot.digest, payload: 10_000)]))
        let chunks = String(decoding: encoder.output, as: UTF8.self).components(separatedBy: "\u{1B}_G").dropFirst()
        #expect(
            chunks.map { $0.prefix(while: { $0 != ";" && $0 != "\u{1B}" }) } == [
                "a=t,i=12,f=32,s=8,v=4,o=z,q=2,m=1", "m=1", "m=0", "a=p,i=12,c=4,r=2,C=1,q=2",
            ])
        #expect(chunks.prefix(3).map { $0.split(separator: ";")[1].prefix { $0 != "\u{1B}" }.count } == [4096, 4096, 1808])
    }

    /// libchafa's iTerm2 image: one OSC 1337 `File=` with `inline=1`, its pixels as an uncompressed TIFF (which iTerm2
    /// and WezTerm read) in base64, ended by BEL or ST.
    @Test func theITerm2ImageIsOneInlineFile() throws {
        let picture = try PictureDecoder.decode(BundledPictures.bytes(of: "pictures/rubber-duck.png")!, limits: .display)
        let stream = String(decoding: try #require(picture.graphics(columns: 20, rows: 8, cellWidth: 10, cellHeight: 20, in: .iterm2)), as: UTF8.self)
        #expect(stream.hasPrefix("\u{1B}]1337;File=") && stream.contains("inline=1"), "\(stream.prefix(80).debugDescription)")
        #expect(stream.hasSuffix("\u{07}") || stream.hasSuffix("\u{1B}\\"))
        let payload = try #require(stream.split(separator: ":", maxSplits: 1).last).trimmingCharacters(
            in: CharacterSet(charactersIn: "\u{07}\u{1B}\\"))
        let bytes = try #require(Data(base64Encoded: payload), "base64")
        #expect(bytes.prefix(4) == Data("II*\u{0}".utf8) || bytes.prefix(4) == Data("MM\u{0}*".utf8), "a TIFF: \(Array(bytes.prefix(8)))")
        #expect(bytes.count > 20 * 10 * 8 * 20 * 3 / 4, "the slot's pixels, uncompressed: \(bytes.count) bytes")
        #expect(picture.graphics(columns: 20, rows: 8, cellWidth: 10, cellHeight: 20, in: .kitty) == nil, "kitty's is sent by id, not here")
    }

    @Test func theImageIsPlacedInItsOwnProportionsCentredInTheSlot() throws {
        let picture = try PictureDecoder.decode(BundledPictures.bytes(of: "pictures/rubber-duck.png")!, limits: .display)
        let image = try #require(picture.kittyImage(digest: "duck"))
        #expect(image.width == picture.width && image.height == picture.height)
        #expect(Data(base64Encoded: Data(image.payload)) != nil, "deflated pixels in base64")
        let wide = KittyImage(digest: "d", width: 100, height: 50, payload: [])
        #expect(wide.placement(columns: 20, rows: 10, cellWidth: 10, cellHeight: 20) == KittyPlacement(column: 0, row: 2, columns: 20, rows: 5))
        #expect(wide.placement(columns: 40, rows: 5, cellWidth: 10, cellHeight: 20) == KittyPlacement(column: 10, row: 0, columns: 20, rows: 5))
    }
}
