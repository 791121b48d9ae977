import LiveObjects
import Synchronization

// SGR: how a look becomes the parameters that set it, and the shortest way from one look to another.

extension FrameEncoder {
    /// The shortest SGR from `old` (nil: unknown) to `new`: the changes alone, or a reset and the full set.
    static func sgr(from old: RoleLook?, to new: RoleLook) -> [UInt8] {
        let reset = "\u{1B}[" + (["0"] + new.parameters).joined(separator: ";") + "m"
        guard let old else { return Array(reset.utf8) }
        if old == new { return [] }
        var delta: [String] = []
        // Bold and dim share one "off" (22): turning either off turns both off.
        if (old.bold && !new.bold) || (old.dim && !new.dim) {
            delta.append("22")
            if new.bold { delta.append("1") }
            if new.dim { delta.append("2") }
        } else {
            if new.bold && !old.bold { delta.append("1") }
            if new.dim && !old.dim { delta.append("2") }
        }
        if new.underline != old.underline { delta.append(new.underline ? "4" : "24") }
        if new.reverse != old.reverse { delta.append(new.reverse ? "7" : "27") }
        if new.foreground != old.foreground { delta.append(RoleLook.colorParameter(new.foreground, base: 30)) }
        if new.background != old.background { delta.append(RoleLook.colorParameter(new.background, base: 40)) }
        let changes = "\u{1B}[" + delta.joined(separator: ";") + "m"
        return Array((changes.utf8.count < reset.utf8.count ? changes : reset).utf8)
    }
}

extension RoleLook {
    /// True when a blank drawn in this look looks the same as one drawn in `other`: the same background, and
    /// neither underlined nor reversed (an underline, or a reversed blank, shows the foreground colour).
    func drawsBlanksAs(_ other: RoleLook) -> Bool {
        if self == other { return true }
        return background == other.background && !reverse && !other.reverse && !underline && !other.underline
    }

    /// An SGR colour parameter: the default, one of the 8 basic colours, or one of 256.
    static func colorParameter(_ value: Int16, base: Int) -> String {
        if value < 0 { return "\(base + 9)" }
        if value < 8 { return "\(base + Int(value))" }
        return "\(base + 8);5;\(value)"
    }

    /// Every SGR parameter that sets this look after a reset.
    var parameters: [String] {
        var out: [String] = []
        if bold { out.append("1") }
        if dim { out.append("2") }
        if underline { out.append("4") }
        if reverse { out.append("7") }
        if foreground >= 0 { out.append(Self.colorParameter(foreground, base: 30)) }
        if background >= 0 { out.append(Self.colorParameter(background, base: 40)) }
        return out
    }
}

/// The shortest SGR from every pen to every other in one colour mode, worked out once per process and shared by every
/// frame encoder of that mode: the sessions of a worker, and, made in the session host's warm-up, every fork of it.
final class PenTransitions: Sendable {
    /// Every transition's bytes, one after another; the one from `from` (nil: unknown) to `to` starts at
    /// `offsets[(from + 1) * penCount + to]` and ends where the next starts.
    private let bytes: [UInt8]
    private let offsets: [Int32]
    private let penCount: Int

    private init(looks: [RoleLook]) {
        penCount = looks.count
        var bytes: [UInt8] = []
        var offsets: [Int32] = []
        offsets.reserveCapacity((penCount + 1) * penCount + 1)
        for from in [nil] + looks.map(Optional.some) {
            for to in looks {
                offsets.append(Int32(bytes.count))
                bytes += FrameEncoder.sgr(from: from, to: to)
            }
        }
        offsets.append(Int32(bytes.count))
        self.bytes = bytes
        self.offsets = offsets
    }

    /// The bytes that change the pen from `from` (nil: not known) to `to`.
    func sequence(from: Int?, to: Int) -> ArraySlice<UInt8> {
        let key = ((from ?? -1) + 1) * penCount + to
        return bytes[Int(offsets[key])..<Int(offsets[key + 1])]
    }

    private static let made = Mutex<[ColorMode: PenTransitions]>([:])

    /// The table for `mode`, made on first use.
    static func of(_ mode: ColorMode) -> PenTransitions {
        made.withLock { made in
            if let found = made[mode] { return found }
            let table = PenTransitions(looks: FrameEncoder.penLooks(mode))
            made[mode] = table
            return table
        }
    }
}

extension PenTransitions: LiveObject {}
