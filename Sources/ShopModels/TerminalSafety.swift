extension Unicode.Scalar {
    /// Must never reach a terminal from data: a C0 or C1 control, DEL, or a bidi control that could reorder what is shown.
    public var isUnsafeForTerminal: Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        // The line and paragraph separators: a line break to JavaScript, log viewers and some terminals.
        case 0x2028, 0x2029: true
        default: false
        }
    }
}

/// What a terminal is sent when the shop died without putting it back (a crash, SIGKILL).
public enum TerminalReset {
    /// Every mouse report mode off, the alternate screen left, cursor keys and keypad back to normal, the cursor
    /// shown and attributes reset: without it, clicks type `ESC [ < 0 ; …` into the shopper's shell.
    public static let afterCrash = "\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1003l\u{1B}[?1006l\u{1B}[?1049l\u{1B}[?1l\u{1B}>\u{1B}[?25h\u{1B}[0m\r\n"
}
