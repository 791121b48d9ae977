import LiveObjects
import ShopModels
import ShopPorts
import Synchronization

/// The process's pictures for every session in it: each stored picture read and decoded once (scaled to
/// `PictureLimits.display`), and drawn once per cell size; the least recently used go first past `byteLimit`.
public final class SharedPictureMosaics: PictureMosaics, Sendable {
    private let repository: any PictureRepository
    private let byteLimit: Int
    private let cache: Mutex<PictureCache>
    /// Decodes under way, so sessions asking for one picture at once wait for one decode.
    private let decoding = Mutex<[String: Task<DecodedPicture?, Never>]>([:])

    /// The largest box a mosaic is drawn in: a terminal at the shop's largest size.
    public static let largestBox = (columns: 320, rows: 240)

    public init(repository: any PictureRepository, byteLimit: Int = 48 * 1024 * 1024) {
        self.repository = repository
        self.byteLimit = byteLimit
        cache = Mutex(PictureCache())
    }

    public func mosaic(digest: String, columns: Int, rows: Int) async -> PictureMosaic? {
        guard (1...Self.largestBox.columns).contains(columns), (1...Self.largestBox.rows).contains(rows) else { return nil }
        let key = PictureCache.Key(digest: digest, columns: columns, rows: rows)
        if let mosaic = cache.withLock({ $0.mosaic(key) }) { return mosaic }
        guard let picture = await decoded(digest), let mosaic = picture.mosaic(columns: columns, rows: rows) else { return nil }
        cache.withLock { $0.keep(mosaic, for: key, within: byteLimit) }
        return mosaic
    }

    public func graphics(
        digest: String, columns: Int, rows: Int, cellWidth: Int, cellHeight: Int, in graphics: TerminalGraphics
    ) async -> PictureGraphics? {
        guard (1...Self.largestBox.columns).contains(columns), (1...Self.largestBox.rows).contains(rows),
            (1...64).contains(cellWidth), (1...128).contains(cellHeight)
        else { return nil }
        if graphics == .kitty {
            // One image for every size: the terminal keeps it by id and scales it to the cells it is placed in.
            guard let image = await kittyImage(digest) else { return nil }
            return .kitty(image, placement: image.placement(columns: columns, rows: rows, cellWidth: cellWidth, cellHeight: cellHeight))
        }
        let key = PictureCache.GraphicsKey(
            digest: digest, columns: columns, rows: rows, cellWidth: cellWidth, cellHeight: cellHeight, graphics: graphics)
        if let bytes = cache.withLock({ $0.graphics(key) }) { return .inline(bytes) }
        guard let picture = await decoded(digest),
            let bytes = picture.graphics(columns: columns, rows: rows, cellWidth: cellWidth, cellHeight: cellHeight, in: graphics)
        else { return nil }
        cache.withLock { $0.keep(bytes, for: key, within: byteLimit) }
        return .inline(bytes)
    }

    private func kittyImage(_ digest: String) async -> KittyImage? {
        if let image = cache.withLock({ $0.kittyImage(digest) }) { return image }
        guard let picture = await decoded(digest), let image = picture.kittyImage(digest: digest) else { return nil }
        cache.withLock { $0.keep(image, within: byteLimit) }
        return image
    }

    /// Bytes the cache holds now: decoded pixels, mosaics and graphics.
    public var heldBytes: Int { cache.withLock { $0.bytes } }

    private func decoded(_ digest: String) async -> DecodedPicture? {
        if let picture = cache.withLock({ $0.picture(digest) }) { return picture }
        let task = decoding.withLock { running in
            if let task = running[digest] { return task }
            let repository = repository
            let task = Task<DecodedPicture?, Never> {
                guard let stored = try? await repository.picture(digest: digest) else { return nil }
                return try? PictureDecoder.decode(stored.bytes, limits: .display)
            }
            running[digest] = task
            return task
        }
        let picture = await task.value
        decoding.withLock { $0[digest] = nil }
        if let picture { cache.withLock { $0.keep(picture, for: digest, within: byteLimit) } }
        return picture
    }
}

/// Decoded pictures and mosaics by key, with their bytes counted and their last use, for least-recently-used eviction.
struct PictureCache {
    struct Key: Hashable {
        var digest: String
        var columns: Int
        var rows: Int
    }

    struct GraphicsKey: Hashable {
        var digest: String
        var columns: Int
        var rows: Int
        var cellWidth: Int
        var cellHeight: Int
        var graphics: TerminalGraphics
    }

    private enum Entry {
        case picture(DecodedPicture)
        case mosaic(PictureMosaic)
        case graphics([UInt8])
        case kitty(KittyImage)

        var bytes: Int {
            switch self {
            case .picture(let picture): picture.rgba.count + 64
            case .mosaic(let mosaic): mosaic.cells.count * MemoryLayout<MosaicCell>.stride + 64
            case .graphics(let bytes): bytes.count + 64
            case .kitty(let image): image.payload.count + 64
            }
        }
    }

    private enum Name: Hashable {
        case picture(String)
        case mosaic(Key)
        case graphics(GraphicsKey)
        case kitty(String)
    }

    private var entries: [Name: (entry: Entry, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    private(set) var bytes = 0

    mutating func picture(_ digest: String) -> DecodedPicture? {
        guard case .picture(let picture) = touch(.picture(digest)) else { return nil }
        return picture
    }

    mutating func mosaic(_ key: Key) -> PictureMosaic? {
        guard case .mosaic(let mosaic) = touch(.mosaic(key)) else { return nil }
        return mosaic
    }

    mutating func graphics(_ key: GraphicsKey) -> [UInt8]? {
        guard case .graphics(let bytes) = touch(.graphics(key)) else { return nil }
        return bytes
    }

    mutating func kittyImage(_ digest: String) -> KittyImage? {
        guard case .kitty(let image) = touch(.kitty(digest)) else { return nil }
        return image
    }

    mutating func keep(_ image: KittyImage, within limit: Int) {
        store(.kitty(image), as: .kitty(image.digest), within: limit)
    }

    mutating func keep(_ bytes: [UInt8], for key: GraphicsKey, within limit: Int) {
        store(.graphics(bytes), as: .graphics(key), within: limit)
    }

    mutating func keep(_ picture: DecodedPicture, for digest: String, within limit: Int) {
        store(.picture(picture), as: .picture(digest), within: limit)
    }

    mutating func keep(_ mosaic: PictureMosaic, for key: Key, within limit: Int) {
        store(.mosaic(mosaic), as: .mosaic(key), within: limit)
    }

    private mutating func touch(_ name: Name) -> Entry? {
        guard let found = entries[name] else { return nil }
        clock += 1
        entries[name] = (found.entry, clock)
        return found.entry
    }

    private mutating func store(_ entry: Entry, as name: Name, within limit: Int) {
        clock += 1
        if let old = entries.updateValue((entry, clock), forKey: name) { bytes -= old.entry.bytes }
        bytes += entry.bytes
        // Oldest first; the one just kept stays even alone past the limit, as it is about to be drawn.
        while bytes > limit, entries.count > 1,
            let oldest = entries.filter({ $0.key != name }).min(by: { $0.value.used < $1.value.used })
        {
            bytes -= oldest.value.entry.bytes
            entries[oldest.key] = nil
        }
    }
}
extension SharedPictureMosaics: LiveObject {}
