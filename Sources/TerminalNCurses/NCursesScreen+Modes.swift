import CNCurses
import StorefrontUI

/// Setting a new screen up: input modes, colours, the first refresh, and the mouse encoding asked for.
extension NCursesScreen {
    /// Puts the new screen in the shop's modes and colours; returns the colour mode in use.
    static func enterModes(theme: ThemePreference, environment: [String: String], mouse: Bool, background: Background = .dark) -> ColorMode {
        // Raw: Ctrl-C, Ctrl-Z and Ctrl-\ arrive as keys, so nothing suspends or kills the shop mid-payment.
        raw()
        noecho()
        nonl()
        keypad(sf_stdscr(), true)
        nodelay(sf_stdscr(), true)
        set_escdelay(25)
        // With the mouse on, the terminal's own selection needs Shift; off, it works as ever.
        if mouse { _ = sf_mouse(1) }
        leaveok(sf_stdscr(), true)
        // No typeahead check: curses would poll stdin during each update and flush its output early
        // when a key is waiting, so a frame left in several writes; the shop draws once per burst anyway.
        typeahead(-1)
        curs_set(0)
        let hasColors = has_colors()
        if hasColors, theme != .mono, (environment["NO_COLOR"] ?? "").isEmpty {
            start_color()
            use_default_colors()
        }
        return Theme.mode(preference: theme, environment: environment, hasColors: hasColors, colors: Int(sf_colors()), background: background)
    }

    /// The blank first refresh, once the screen knows who draws its frames.
    static func settleFirstOutput(cursesDraws: Bool) {
        // ncurses 6.4 flushes its output after every cursor move until the screen has been left and
        // resumed once, so a frame it draws reached the terminal in several writes. Leaving and resuming
        // makes every later frame one write; the shop's own encoder writes each frame at once anyway,
        // and there leaving would only flash the screen (the alternate screen left and entered again).
        if cursesDraws { endwin() }
        // stdscr starts out touched, and the first read of a key would refresh it, clearing the screen
        // under frames the shop writes itself: refreshing it now, blank, settles that.
        wnoutrefresh(sf_stdscr())
        doupdate()
        // Leaving turned the keypad's application mode off, and curses would only turn it back on at
        // the first read: an arrow typed before that would arrive in a form it does not decode.
        if cursesDraws { keypad(sf_stdscr(), true) }
    }

    /// Asks for SGR mouse reports (1006) where terminfo names only the old encoding, which loses clicks past column 223
    /// (tmux's and screen's entries); true when it did. tmux speaks SGR all the same, and a terminal that does not
    /// keeps sending the old reports, which curses reads.
    static func askForSGRMouseReports() -> Bool {
        guard sf_tigetstr("XM") == nil, sf_tigetstr("kmous").map({ String(cString: $0) }) != "\u{1B}[<" else { return false }
        writeAll("\u{1B}[?1006h", to: STDOUT_FILENO)
        return true
    }
}
