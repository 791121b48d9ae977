import CPictures
import Foundation
import Glibc
import ShopModels

/// Which symbols a mosaic is drawn with.
public enum MosaicSymbols: Sendable, Hashable {
    /// Unicode's Block Elements (halves, quadrants, eighths), which every font with box drawing has.
    case blocks
    /// Half blocks alone, which every font with box drawing has.
    case halves
    /// Braille dots: fine detail, one colour per cell.
    case braille

    var cValue: sf_mosaic_symbols {
        switch self {
        case .blocks: SF_MOSAIC_BLOCKS
        case .halves: SF_MOSAIC_HALVES
        case .braille: SF_MOSAIC_BRAILLE
        }
    }
}

extension DecodedPicture {
    /// The picture as libchafa draws it in `columns` × `rows` cells; nil when the box is empty.
    public func mosaic(columns: Int, rows: Int, symbols: MosaicSymbols = .blocks) -> PictureMosaic? {
        guard columns > 0, rows > 0 else { return nil }
        var cells = [sf_mosaic_cell](repeating: sf_mosaic_cell(), count: columns * rows)
        let result = rgba.withUnsafeBufferPointer { pixels in
            sf_mosaic(pixels.baseAddress, UInt32(width), UInt32(height), Int32(columns), Int32(rows), symbols.cValue, &cells)
        }
        guard result == 0 else { return nil }
        return PictureMosaic(
            columns: columns, rows: rows,
            cells: cells.map { MosaicCell(symbol: $0.symbol, foreground: $0.foreground, background: $0.background) })
    }
}

extension DecodedPicture {
    /// The bytes that draw the picture at the cursor in `columns` × `rows` cells of `cellWidth` × `cellHeight` pixels,
    /// in sixel or iTerm2's inline images, as libchafa writes them; nil when it cannot, and for kitty's protocol, whose
    /// images are sent once by id (`kittyImage(digest:)`).
    public func graphics(columns: Int, rows: Int, cellWidth: Int, cellHeight: Int, in graphics: TerminalGraphics) -> [UInt8]? {
        guard columns > 0, rows > 0, (1...64).contains(cellWidth), (1...128).contains(cellHeight) else { return nil }
        let inline: sf_graphics_protocol
        switch graphics {
        case .sixel: inline = SF_GRAPHICS_SIXEL
        case .iterm2: inline = SF_GRAPHICS_ITERM2
        case .kitty: return nil
        }
        var bytes: UnsafeMutablePointer<UInt8>?
        var count = 0
        let result = rgba.withUnsafeBufferPointer { pixels in
            sf_graphics(
                pixels.baseAddress, UInt32(width), UInt32(height), Int32(columns), Int32(rows), Int32(cellWidth), Int32(cellHeight),
                inline, &bytes, &count)
        }
        guard result == 0, let bytes else { return nil }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }
}

extension DecodedPicture {
    /// The picture as kitty's protocol sends it: its RGBA pixels deflated, in base64; nil when zlib cannot.
    public func kittyImage(digest: String) -> KittyImage? {
        var deflated: UnsafeMutablePointer<UInt8>?
        var count = 0
        let result = rgba.withUnsafeBufferPointer { sf_deflate($0.baseAddress, $0.count, 6, &deflated, &count) }
        guard result == 0, let deflated else { return nil }
        defer { free(deflated) }
        let payload = Array(Data(UnsafeBufferPointer(start: deflated, count: count)).base64EncodedData())
        return KittyImage(digest: digest, width: width, height: height, payload: payload)
    }
}
