import ShopModels
import StorefrontUI

/// Pictures drawn as pixels (sixel, iTerm2's inline images, kitty's protocol) over their slots, whose cells the frame
/// keeps blank.
///
/// Order within a frame: the pixels of pictures no longer shown are erased (sixel and iTerm2: their slots' cells
/// blanked, as the encoder believes them blank; kitty: every placement deleted, the ones still shown placed again) →
/// the cells → each picture not yet on screen is drawn at its slot (kitty: its image sent first if the terminal does
/// not hold it yet, then placed by id).
extension FrameEncoder {
    /// The bytes that take the pictures gone from `new` off the screen, written before its cells.
    mutating func pictureErasure(from old: Frame?, to new: Frame) -> [UInt8] {
        // A full repaint clears the screen, pictures and all (kitty keeps the images' data, by id).
        guard let old, old.size == new.size, !placedPictures.isEmpty else {
            placedPictures = []
            return []
        }
        let shown = Set(new.pictureGraphics.keys)
        let gone = placedPictures.subtracting(shown)
        guard !gone.isEmpty else { return [] }
        switch new.pictureSupport {
        case .kitty:
            // Every placement deleted, the images kept (lowercase `d=a`); the ones still shown are placed again after
            // the cells, by id, which costs a few bytes each.
            placedPictures = []
            return Array("\u{1B}_Ga=d,d=a,q=2\u{1B}\\".utf8)
        case .art, .mosaic, .sixel, .iterm2:
            var bytes: [UInt8] = []
            for slot in gone {
                for row in slot.row..<min(slot.row + slot.rows, new.size.rows) {
                    bytes += Array("\u{1B}[\(row + 1);\(slot.column + 1)H\u{1B}[m\u{1B}[\(slot.columns)X".utf8)
                }
            }
            placedPictures.subtract(gone)
            return bytes
        }
    }

    /// Draws each of `frame`'s pictures that is not on screen yet at its slot, after its cells.
    mutating func appendPictures(of frame: Frame) {
        var drew = false
        for (slot, graphics) in frame.pictureGraphics.sorted(by: { ($0.key.row, $0.key.column) < ($1.key.row, $1.key.column) })
        where !placedPictures.contains(slot) {
            switch graphics {
            case .inline(let bytes):
                output.append(contentsOf: Array("\u{1B}[\(slot.row + 1);\(slot.column + 1)H".utf8))
                output.append(contentsOf: bytes)
            case .kitty(let image, let placement):
                let id = kittyImages[image.digest] ?? transmit(image)
                output.append(contentsOf: Array("\u{1B}[\(slot.row + placement.row + 1);\(slot.column + placement.column + 1)H".utf8))
                // C=1: the cursor stays where it is, so nothing after it scrolls.
                output.append(contentsOf: Array("\u{1B}_Ga=p,i=\(id),c=\(placement.columns),r=\(placement.rows),C=1,q=2\u{1B}\\".utf8))
            }
            placedPictures.insert(slot)
            drew = true
        }
        // The protocols leave the cursor and the pen where they like.
        if drew { forget() }
    }

    /// Sends `image` to the terminal under an id of its own, in chunks of 4,096 bytes of base64 as kitty's protocol
    /// asks; quiet (`q=2`), so no answer comes back among the keys.
    private mutating func transmit(_ image: KittyImage) -> UInt32 {
        let id = Self.kittyID(for: image.digest, besides: Set(kittyImages.values))
        kittyImages[image.digest] = id
        let chunk = 4096
        var start = 0
        repeat {
            let end = min(start + chunk, image.payload.count)
            let more = end < image.payload.count ? 1 : 0
            let control = start == 0 ? "a=t,i=\(id),f=32,s=\(image.width),v=\(image.height),o=z,q=2,m=\(more)" : "m=\(more)"
            output.append(contentsOf: Array("\u{1B}_G\(control);".utf8))
            output.append(contentsOf: image.payload[start..<end])
            output.append(contentsOf: Array("\u{1B}\\".utf8))
            start = end
        } while start < image.payload.count
        return id
    }

    /// The bytes that free every image the terminal holds for the shop (`d=I`: placements and data), written as the
    /// shop leaves the terminal.
    var releasingPictures: [UInt8] {
        kittyImages.values.sorted().flatMap { Array("\u{1B}_Ga=d,d=I,i=\($0),q=2\u{1B}\\".utf8) }
    }

    /// An image id from the picture's digest, so another program's small ids in the same window are left alone; the
    /// next free one where two digests begin alike.
    static func kittyID(for digest: String, besides taken: Set<UInt32>) -> UInt32 {
        var id = UInt32(digest.prefix(8), radix: 16) ?? 1
        while id == 0 || taken.contains(id) { id &+= 1 }
        return id
    }
}
