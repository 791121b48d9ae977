import LiveObjects
import ShopModels
import ShopPorts

/// A session's pictures: the mosaics drawn in its frames, kept by digest and size, and the ones asked for meanwhile.
/// The shared work (decoding, scaling) is the source's; this keeps what the session shows at hand, so a frame is
/// filled without waiting.
@MainActor
final class PictureFill {
    private struct Key: Hashable {
        var digest: String
        var columns: Int
        var rows: Int
    }

    private let source: (any PictureMosaics)?
    /// What each key drew, nil when it could not be drawn (it is not asked for again).
    private var drawn: [Key: PictureMosaic?] = [:]
    private var waiting: [Key: Task<Void, Never>] = [:]
    /// What to do when each awaited mosaic comes: a hint asked for ahead may be on screen by then.
    private var whenArrived: [Key: [@MainActor () -> Void]] = [:]
    /// A session shows a few pictures at a time: past this many, the oldest are dropped.
    private static let kept = 48
    private var order: [Key] = []

    init(source: (any PictureMosaics)?) {
        self.source = source
    }

    /// Draws into `frame` each picture the session has; asks for the others, calling `arrived` with each slot once
    /// its picture is in.
    /// The frame's hints are asked for too, after its own pictures, and kept for the frames that show them.
    func draw(into frame: inout Frame, arrived: @escaping @MainActor (PictureSlot) -> Void = { _ in }) {
        guard source != nil else { return }
        for slot in frame.pictureSlots {
            let key = Key(digest: slot.digest, columns: slot.columns, rows: slot.rows)
            if let known = drawn[key] {
                if let mosaic = known { frame.draw(mosaic, in: slot) }
                continue
            }
            ask(key) { arrived(slot) }
        }
        for hint in frame.pictureHints {
            let key = Key(digest: hint.digest, columns: hint.columns, rows: hint.rows)
            if drawn[key] == nil { ask(key) {} }
        }
    }

    /// Asks the source for `key`'s mosaic unless it is asked for already; keeps it and calls `arrived` when it comes.
    private func ask(_ key: Key, arrived: @escaping @MainActor () -> Void) {
        guard let source else { return }
        whenArrived[key, default: []].append(arrived)
        guard waiting[key] == nil else { return }
        waiting[key] = Task { [weak self] in
            let mosaic = await source.mosaic(digest: key.digest, columns: key.columns, rows: key.rows)
            guard let self else { return }
            self.waiting[key] = nil
            self.keep(key, mosaic)
            for arrived in self.whenArrived.removeValue(forKey: key) ?? [] { arrived() }
        }
    }

    /// Returns once every picture asked for is in.
    func settled() async {
        while let task = waiting.values.first {
            await task.value
        }
    }

    private func keep(_ key: Key, _ mosaic: PictureMosaic?) {
        drawn[key] = .some(mosaic)
        order.append(key)
        if order.count > Self.kept { drawn[order.removeFirst()] = nil }
    }
}

extension PictureFill: LiveObject {}
