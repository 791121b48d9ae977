import LiveObjects
import ShopModels
import ShopPorts

/// A session's pictures: the mosaics (or, for a terminal that draws pixels, the graphics' bytes) drawn in its frames,
/// kept by digest and size, and the ones asked for meanwhile. The shared work (decoding, scaling) is the source's;
/// this keeps what the session shows at hand, so a frame is filled without waiting.
@MainActor
final class PictureFill {
    private struct Key: Hashable {
        var digest: String
        var columns: Int
        var rows: Int
        /// For pixels: the protocol and the cell's size; nil for a mosaic.
        var graphics: TerminalGraphics?
        var cell: CellPixels?
    }

    private enum Drawn {
        case mosaic(PictureMosaic)
        case graphics(PictureGraphics)
    }

    private let source: (any PictureMosaics)?
    private let graphics: TerminalGraphics?
    private let cellPixels: @MainActor () -> CellPixels
    /// What each key drew, nil when it could not be drawn (it is not asked for again).
    private var drawn: [Key: Drawn?] = [:]
    private var waiting: [Key: Task<Void, Never>] = [:]
    /// Of those, the ones a frame showed (not only asked for ahead): what a first screen waits for.
    private var shown: Set<Key> = []
    /// What to do when each awaited picture comes: a hint asked for ahead may be on screen by then.
    private var whenArrived: [Key: [@MainActor () -> Void]] = [:]
    /// A session shows a few pictures at a time: past this many, the oldest are dropped (graphics' bytes are larger).
    private var kept: Int { graphics == nil ? 48 : 12 }
    private var order: [Key] = []

    init(source: (any PictureMosaics)?, graphics: TerminalGraphics? = nil, cellPixels: @escaping @MainActor () -> CellPixels = { .usual }) {
        self.source = source
        self.graphics = graphics
        self.cellPixels = cellPixels
    }

    private func key(_ slot: PictureSlot) -> Key {
        Key(digest: slot.digest, columns: slot.columns, rows: slot.rows, graphics: graphics, cell: graphics == nil ? nil : cellPixels())
    }

    /// Draws into `frame` each picture the session has (a mosaic in its cells, or its graphics' bytes beside them);
    /// asks for the others, calling `arrived` with each slot once its picture is in. The frame's hints are asked for
    /// too, after its own pictures, and kept for the frames that show them.
    func draw(into frame: inout Frame, arrived: @escaping @MainActor (PictureSlot) -> Void = { _ in }) {
        guard source != nil else { return }
        for slot in frame.pictureSlots {
            let key = key(slot)
            if let known = drawn[key] {
                switch known {
                case .mosaic(let mosaic): frame.draw(mosaic, in: slot)
                case .graphics(let graphics): frame.pictureGraphics[slot] = graphics
                case nil: break
                }
                continue
            }
            shown.insert(key)
            ask(key) { arrived(slot) }
        }
        for hint in frame.pictureHints {
            let key = key(hint)
            if drawn[key] == nil { ask(key) {} }
        }
    }

    /// Asks the source for `key`'s picture unless it is asked for already; keeps it and calls `arrived` when it comes.
    private func ask(_ key: Key, arrived: @escaping @MainActor () -> Void) {
        guard let source else { return }
        whenArrived[key, default: []].append(arrived)
        guard waiting[key] == nil else { return }
        waiting[key] = Task { [weak self] in
            let result: Drawn?
            if let graphics = key.graphics, let cell = key.cell {
                result = await source.graphics(
                    digest: key.digest, columns: key.columns, rows: key.rows, cellWidth: cell.width, cellHeight: cell.height, in: graphics
                ).map(Drawn.graphics)
            } else {
                result = await source.mosaic(digest: key.digest, columns: key.columns, rows: key.rows).map(Drawn.mosaic)
            }
            guard let self else { return }
            self.waiting[key] = nil
            self.shown.remove(key)
            self.keep(key, result)
            for arrived in self.whenArrived.removeValue(forKey: key) ?? [] { arrived() }
        }
    }

    /// Returns once every picture asked for is in.
    func settled() async {
        while let task = waiting.values.first {
            await task.value
        }
    }

    /// Returns once every picture a frame showed is in; those only asked for ahead may still be on their way.
    func shownSettled() async {
        while let task = shown.lazy.compactMap({ self.waiting[$0] }).first {
            await task.value
        }
    }

    private func keep(_ key: Key, _ result: Drawn?) {
        drawn[key] = .some(result)
        order.append(key)
        if order.count > kept { drawn[order.removeFirst()] = nil }
    }
}

extension PictureFill: LiveObject {}
