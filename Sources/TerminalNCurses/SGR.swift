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
