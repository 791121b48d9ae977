import StorefrontUI

/// Pictures drawn as pixels (sixel, kitty's protocol) over their slots, whose cells the frame keeps blank.
///
/// Order within a frame: the pixels of pictures no longer shown are erased (sixel: their slots' cells blanked, as the
/// encoder believes them blank; kitty: every placement deleted, the ones still shown placed again) → the cells → each
/// picture not yet on screen is drawn at its slot.
extension FrameEncoder {
    /// The bytes that take the pictures gone from `new` off the screen, written before its cells.
    mutating func pictureErasure(from old: Frame?, to new: Frame) -> [UInt8] {
        // A full repaint clears the screen, pictures and all.
        guard let old, old.size == new.size, !placedPictures.isEmpty else {
            placedPictures = []
            return []
        }
        let shown = Set(new.pictureGraphics.keys)
        let gone = placedPictures.subtracting(shown)
        guard !gone.isEmpty else { return [] }
        switch new.pictureSupport {
        case .kitty:
            // Every placement and its image deleted; the ones still shown are placed again after the cells.
            placedPictures = []
            return Array("\u{1B}_Ga=d,d=A\u{1B}\\".utf8)
        case .art, .mosaic, .sixel:
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
        for (slot, bytes) in frame.pictureGraphics.sorted(by: { ($0.key.row, $0.key.column) < ($1.key.row, $1.key.column) })
        where !placedPictures.contains(slot) {
            output.append(contentsOf: Array("\u{1B}[\(slot.row + 1);\(slot.column + 1)H".utf8))
            output.append(contentsOf: bytes)
            placedPictures.insert(slot)
            drew = true
        }
        // The protocols leave the cursor and the pen where they like.
        if drew { forget() }
    }
}
