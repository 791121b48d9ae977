import CPictures
import ShopModels

/// The file formats a product's picture may be in.
public enum PictureFormat: String, Sendable, CaseIterable {
    case png, jpeg

    /// The media type an upload names and a page serves it as.
    public var mediaType: String { self == .png ? "image/png" : "image/jpeg" }

    /// The format a media type names; nil for any other.
    public init?(mediaType: String) {
        switch mediaType.lowercased() {
        case "image/png": self = .png
        case "image/jpeg", "image/jpg": self = .jpeg
        default: return nil
        }
    }
}

/// What a decode may spend. Sizes are checked from the file's header before any pixel is allocated, and the clock
/// while it runs, so an image bomb costs a header's read.
public struct PictureLimits: Hashable, Sendable {
    public var maximumBytes: Int
    public var maximumSide: Int
    public var maximumPixels: Int
    public var maximumDecode: Duration
    /// Pixels beyond this on the longer side are scaled away (a JPEG while it decodes); nil keeps them all.
    public var fitSide: Int?

    public init(maximumBytes: Int, maximumSide: Int, maximumPixels: Int, maximumDecode: Duration, fitSide: Int? = nil) {
        self.maximumBytes = maximumBytes
        self.maximumSide = maximumSide
        self.maximumPixels = maximumPixels
        self.maximumDecode = maximumDecode
        self.fitSide = fitSide
    }

    /// What a catalog import and an upload accept: a camera's photograph, not a poster's print file.
    public static let upload = PictureLimits(
        maximumBytes: CatalogLoader.maximumPictureBytes, maximumSide: CatalogLoader.maximumPictureSide, maximumPixels: 24_000_000,
        maximumDecode: .seconds(3))

    /// What a session decodes to draw: an accepted picture, scaled to 480 pixels, more than the largest box in cells.
    public static let display = PictureLimits(
        maximumBytes: upload.maximumBytes, maximumSide: upload.maximumSide, maximumPixels: upload.maximumPixels,
        maximumDecode: upload.maximumDecode, fitSide: 480)
}

/// Why a picture was refused, in words a merchant can act on.
public struct PictureRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        case unknownFormat, tooManyBytes, tooManyPixels, malformed, truncated, tooSlow, noMemory
        /// A PNG sent as a JPEG, or the other way: what the sender said is not what the bytes are.
        case notAsSent
    }
    public var reason: Reason
    /// The check's or the library's own words.
    public var detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String {
        switch reason {
        case .unknownFormat: "not a PNG or JPEG picture"
        case .tooManyBytes, .tooManyPixels, .tooSlow: "too large: \(detail)"
        case .malformed: "damaged: \(detail)"
        case .truncated: "cut short: \(detail)"
        case .noMemory: "could not be decoded: out of memory"
        case .notAsSent: "not what it was sent as: \(detail)"
        }
    }
}

/// A picture's pixels: 8-bit RGBA, row after row.
public struct DecodedPicture: Sendable {
    public let format: PictureFormat
    /// The size the file declares.
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// The size of `rgba`, after any scaling to the limits' `fitSide`.
    public let width: Int
    public let height: Int
    public let rgba: [UInt8]
}

/// Decodes PNG (libpng) and JPEG (libjpeg-turbo) within limits; nothing else is read.
public enum PictureDecoder {
    public static func decode(_ bytes: [UInt8], limits: PictureLimits) throws(PictureRefusal) -> DecodedPicture {
        var cLimits = sf_picture_limits(
            max_bytes: limits.maximumBytes, max_side: UInt32(clamping: limits.maximumSide), max_pixels: UInt64(clamping: limits.maximumPixels),
            max_seconds: Double(limits.maximumDecode.components.seconds) + Double(limits.maximumDecode.components.attoseconds) / 1e18,
            fit_side: UInt32(clamping: limits.fitSide ?? 0))
        var picture = sf_picture()
        let status = bytes.withUnsafeBufferPointer { buffer in
            // An empty array's base address may be nil; the decoder reads nothing from it.
            sf_picture_decode(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!, buffer.count, &cLimits, &picture)
        }
        defer { sf_picture_free(&picture) }
        let message = withUnsafeBytes(of: picture.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard status == SF_PICTURE_OK, let pixels = picture.rgba else {
            throw PictureRefusal(reason(of: status), message)
        }
        let width = Int(picture.width)
        let height = Int(picture.height)
        return DecodedPicture(
            format: picture.format == SF_PICTURE_FORMAT_PNG ? .png : .jpeg,
            sourceWidth: Int(picture.source_width), sourceHeight: Int(picture.source_height), width: width, height: height,
            rgba: Array(UnsafeBufferPointer(start: pixels, count: width * height * 4)))
    }

    private static func reason(of status: sf_picture_status) -> PictureRefusal.Reason {
        switch status {
        case SF_PICTURE_TOO_MANY_BYTES: .tooManyBytes
        case SF_PICTURE_TOO_MANY_PIXELS: .tooManyPixels
        case SF_PICTURE_MALFORMED: .malformed
        case SF_PICTURE_TRUNCATED: .truncated
        case SF_PICTURE_TOO_SLOW: .tooSlow
        case SF_PICTURE_NO_MEMORY: .noMemory
        default: .unknownFormat
        }
    }
}
