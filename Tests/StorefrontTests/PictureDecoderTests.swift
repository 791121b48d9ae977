import Foundation
import PropertyBased
import ShopBundledCatalog
import ShopPictures
import StorefrontTesting
import Testing

/// The decoder takes PNG and JPEG within the limits and refuses the rest by reason: image bombs from their header
/// before a pixel is allocated, truncated and damaged files, other formats; mutated files never take it down.
@Suite("Picture decoding")
struct PictureDecoderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "PictureFixtures")
    static let duckPNG = BundledPictures.bytes(of: "pictures/rubber-duck.png")!
    static let duckJPEG = [UInt8](try! Data(contentsOf: fixtures.appending(path: "duck.jpg")))
    static let progressiveJPEG = [UInt8](try! Data(contentsOf: fixtures.appending(path: "mug-progressive.jpg")))

    @Test func aPNGAndAJPEGDecodeToTheirSizeInRGBA() throws {
        let png = try PictureDecoder.decode(Self.duckPNG, limits: .upload)
        #expect(png.format == .png)
        #expect((png.width, png.height, png.sourceWidth, png.sourceHeight) == (384, 288, 384, 288))
        #expect(png.rgba.count == 384 * 288 * 4)
        // The duck's body, yellow, at the middle; opaque.
        let middle = (144 * 384 + 192) * 4
        #expect(png.rgba[middle] > 200 && png.rgba[middle + 1] > 160 && png.rgba[middle + 2] < 120 && png.rgba[middle + 3] == 255)
        for jpeg in [Self.duckJPEG, Self.progressiveJPEG] {
            let decoded = try PictureDecoder.decode(jpeg, limits: .upload)
            #expect(decoded.format == .jpeg)
            #expect((decoded.width, decoded.height) == (384, 288))
        }
    }

    @Test func aPictureShownInCellsIsScaledToFitItsSide() throws {
        var limits = PictureLimits.upload
        limits.fitSide = 96
        let png = try PictureDecoder.decode(Self.duckPNG, limits: limits)
        #expect((png.width, png.height, png.sourceWidth) == (96, 72, 384))
        let jpeg = try PictureDecoder.decode(Self.duckJPEG, limits: limits)
        #expect((jpeg.width, jpeg.height) == (96, 72), "decoded at 1/4, then no scaling left")
    }

    /// A 50,000 × 50,000 PNG: 73 bytes that ask for 10 GB of pixels.
    @Test func aPNGBombIsRefusedFromItsHeader() {
        let bomb = Fixtures.png(width: 50_000, height: 50_000)
        #expect(throws: PictureRefusal(.tooManyPixels, "50000x50000 pixels is more than the 8192-pixel side and 24000000 pixels allowed")) {
            try PictureDecoder.decode(bomb, limits: .upload)
        }
        // Within each side, past the pixels.
        #expect(throws: PictureRefusal.self) { try PictureDecoder.decode(Fixtures.png(width: 8_000, height: 8_000), limits: .upload) }
        #expect((try? PictureDecoder.decode(Fixtures.png(width: 8_000, height: 8_000), limits: .upload)) == nil)
    }

    @Test func aJPEGBombIsRefusedFromItsHeader() throws {
        var bomb = Self.duckJPEG
        // The frame header (SOF0 or SOF2): FF C0/C2, length, precision, then height and width.
        let frame = try #require((0..<(bomb.count - 1)).first { bomb[$0] == 0xFF && (bomb[$0 + 1] == 0xC0 || bomb[$0 + 1] == 0xC2) })
        bomb.replaceSubrange((frame + 5)..<(frame + 9), with: [0xC3, 0x50, 0xC3, 0x50])
        let refusal = try #require(throws: PictureRefusal.self) { try PictureDecoder.decode(bomb, limits: .upload) }
        #expect(refusal.reason == .tooManyPixels)
        #expect(refusal.description == "too large: 50000x50000 pixels is more than the 8192-pixel side and 24000000 pixels allowed")
    }

    @Test func truncatedFilesAreRefusedAsCutShort() throws {
        let png = try #require(throws: PictureRefusal.self) {
            try PictureDecoder.decode(Array(Self.duckPNG.prefix(Self.duckPNG.count / 2)), limits: .upload)
        }
        #expect(png.reason == .truncated)
        let jpeg = try #require(throws: PictureRefusal.self) {
            try PictureDecoder.decode(Array(Self.duckJPEG.prefix(Self.duckJPEG.count / 2)), limits: .upload)
        }
        #expect(jpeg.reason == .truncated)
        #expect(jpeg.description.hasPrefix("cut short: "))
    }

    @Test func otherFormatsDamageAndSizeAreRefusedByReason() throws {
        #expect(throws: PictureRefusal(.unknownFormat, "not a PNG or JPEG file")) {
            try PictureDecoder.decode(Array("GIF89a".utf8) + [0, 1], limits: .upload)
        }
        #expect(throws: PictureRefusal.self) { try PictureDecoder.decode([], limits: .upload) }
        var damaged = Self.duckPNG
        damaged[20] ^= 0xFF  // inside IHDR: its CRC no longer matches
        #expect(try #require(throws: PictureRefusal.self) { try PictureDecoder.decode(damaged, limits: .upload) }.reason == .malformed)
        var small = PictureLimits.upload
        small.maximumBytes = 1_000
        let refusal = try #require(throws: PictureRefusal.self) { try PictureDecoder.decode(Self.duckPNG, limits: small) }
        #expect(refusal.reason == .tooManyBytes)
    }

    /// Random damage to real files (bytes changed, files cut): each decodes within the limits or is refused.
    @Test func mutatedPicturesDecodeOrAreRefusedNeverCrash() async {
        let originals = [Self.duckPNG, Self.duckJPEG, Self.progressiveJPEG]
        let which = Gen.int(in: 0...(originals.count - 1))
        let positions = Gen.int(in: 0...1_000_000).array(of: 1...12)
        await propertyCheck(count: 400, input: which, positions, Gen.int(in: 0...99), Gen.int(in: 0...255)) { which, positions, cut, value in
            var bytes = originals[which]
            for position in positions { bytes[position % bytes.count] = UInt8(truncatingIfNeeded: value &+ position) }
            if cut < 30 { bytes = Array(bytes.prefix(bytes.count * cut / 30)) }
            do throws(PictureRefusal) {
                let picture = try PictureDecoder.decode(bytes, limits: .display)
                #expect(picture.width <= 480 && picture.height <= 480 && picture.rgba.count == picture.width * picture.height * 4)
            } catch {
                #expect(!error.detail.isEmpty)
            }
        }
    }
}
