extension Unicode.Scalar {
    /// Must never reach a terminal from data: a C0 or C1 control, DEL, or a bidi control that could reorder what is shown.
    public var isUnsafeForTerminal: Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
