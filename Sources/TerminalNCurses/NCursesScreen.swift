import CNCurses
import Foundation
import LiveObjects
import ShopModels
import StorefrontUI

/// Why the terminal could not be used, with the words the user sees.
public enum TerminalError: Error, Equatable, CustomStringConvertible {
    case notATerminal
    case termUnset
    case unknownTerminal(String)
    case cannotAddressCursor(String)
    case startFailed(String)

    public var description: String {
        switch self {
        case .notATerminal:
            "storefront needs an interactive terminal; for scripts use `storefront headless`"
        case .termUnset:
            "TERM is not set, so the terminal's abilities are unknown; try TERM=xterm-256color storefront"
        case .unknownTerminal(let term):
            "terminal type \"\(term)\" is not in the terminfo database; try TERM=xterm-256color storefront"
        case .cannotAddressCursor(let term):
            "terminal type \"\(term)\" cannot move the cursor, so a full-screen shop cannot be drawn; try TERM=xterm-256color, or use `storefront headless`"
        case .startFailed(let why):
            "could not start the terminal screen: \(why)"
        }
    }
}

/// The ncurses screen: the only type that calls curses. Every call happens on the main queue, one at a time
/// (keys are read from the key thread while it holds the main queue).
///
/// Order of calls: `init` (checks the terminal, enters curses) → `draw` per batch of input →
/// `readKeys` when stdin is readable → `adoptTerminalSize` on SIGWINCH → `restore` once (safe twice).
@MainActor
final class NCursesScreen {
    private(set) var size: Size
    let charset: Charset
    let colorMode: ColorMode
    /// True when the shop asked for SGR mouse reports itself, which curses would not: they are turned off on leaving.
    private var asksForSGRMouse = false
    private var screen: OpaquePointer?
    private var previous: Frame?
    /// Where frames go: nil, curses' `doupdate`; otherwise bytes of the shop's own, for a terminal whose
    /// terminfo entry was checked to speak ANSI (`AnsiDialect`), written to `outputFD`.
    private var encoder: FrameEncoder?
    private let outputFD: Int32
    /// Where the terminal speaks ANSI (the shop writes its frames), keys are read and decoded without curses, a
    /// read for all that waits; nil where curses decodes them by the terminal's entry.
    var directKeys: KeyReader?
    /// Curses attributes and colour pair per style role, indexed by the role's raw value.
    private var roleAttributes: [(attr_t, Int16)] = []
    private(set) var isActive = false

    /// Checks stdin/stdout and TERM before touching the screen, so failures draw nothing.
    static func checkTerminal(environment: [String: String]) throws {
        guard isatty(0) == 1, isatty(1) == 1 else { throw TerminalError.notATerminal }
        guard let term = environment["TERM"], !term.isEmpty else { throw TerminalError.termUnset }
        switch sf_check_terminal(term) {
        case 1: break
        case 0: throw TerminalError.cannotAddressCursor(term)
        default: throw TerminalError.unknownTerminal(term)
        }
    }

    /// The variable that sends frames through curses' own `doupdate` when set to `curses`, for a terminal
    /// whose entry passes the ANSI check yet draws the shop's bytes wrongly.
    static let outputVariable = "STOREFRONT_OUTPUT"

    /// `background` is what `--theme auto` follows: what the terminal answered `BackgroundProbe.ask`, asked earlier.
    init(theme: ThemePreference, environment: [String: String], mouse: Bool = false, background: Background = .dark, typeahead: [UInt8] = []) throws {
        try Self.checkTerminal(environment: environment)
        Self.setLocale(environment: environment)
        charset = sf_locale_is_utf8() == 1 ? .unicode : .ascii
        // curses sizes its screens from LINES and COLUMNS when they are set. Where the shop writes its own frames
        // curses never draws, so its three screens (28 bytes a cell each: 161 KiB at 80x24, 1 MiB at 200x60, in
        // every session) are made one column wide; they keep the terminal's rows, which curses sets the scrolling
        // region to (a one-row region is no valid region), and grow to the terminal, bounded by the shop's maximum,
        // only where curses draws.
        var rows: Int32 = 0
        var columns: Int32 = 0
        let measured = sf_window_size(1, &rows, &columns) == 0 && rows > 0 && columns > 0
        let bounded = Size(columns: Int(columns), rows: Int(rows)).bounded
        let started = measured ? Self.sized(Size(columns: 1, rows: bounded.rows)) { sf_newterm() } : sf_newterm()
        guard let screen = started else { throw TerminalError.startFailed("newterm failed for TERM=\(environment["TERM"] ?? "")") }
        self.screen = screen
        isActive = true
        colorMode = Self.enterModes(theme: theme, environment: environment, mouse: mouse, background: background)
        outputFD = STDOUT_FILENO
        encoder = Self.encoder(colorMode: colorMode, environment: environment)
        directKeys = Self.keyReader(writesDirectly: encoder != nil, typeahead: typeahead, mouse: mouse)
        if measured, encoder == nil { resize_term(Int32(bounded.rows), Int32(bounded.columns)) }
        size = measured ? bounded : Size(columns: Int(getmaxx(sf_stdscr())), rows: Int(getmaxy(sf_stdscr())))
        Self.settleFirstOutput(cursesDraws: encoder == nil)
        asksForSGRMouse = mouse && Self.askForSGRMouseReports()
        prepareAttributes()
        // What a crash must still do: the terminal put back as a shell needs it.
        sf_install_crash_restore(1, TerminalReset.afterCrash)
    }

    /// The terminal's locale, from its variables; where they name a UTF-8 locale this host has not generated (a
    /// `ja_JP.UTF-8` terminal on a host with only C.UTF-8), C.UTF-8, which every glibc has: the terminal still
    /// speaks UTF-8, and the language is the shop's to choose, not the C library's.
    static func setLocale(environment: [String: String]) {
        guard setlocale(LC_ALL, "") == nil else { return }
        let named = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        if named.lowercased().replacingOccurrences(of: "-", with: "").contains(".utf8") { setlocale(LC_ALL, "C.UTF-8") }
    }

    /// A screen of `size` for terminal type `term` that writes to `outputFD` and reads nothing: what
    /// the stage benchmark times frames with, away from a terminal.
    init(offscreen size: Size, term: String, outputFD: Int32, theme: ThemePreference, direct: Bool) throws {
        setlocale(LC_ALL, "")
        charset = .unicode
        let started = Self.sized(size) { sf_newterm_offscreen(term, outputFD) }
        guard let screen = started else { throw TerminalError.startFailed("newterm failed for TERM=\(term)") }
        self.screen = screen
        isActive = true
        colorMode = Self.enterModes(theme: theme, environment: ["TERM": term], mouse: false)
        self.size = Size(columns: Int(getmaxx(sf_stdscr())), rows: Int(getmaxy(sf_stdscr())))
        self.outputFD = outputFD
        encoder = direct ? Self.encoder(colorMode: colorMode, environment: [:]) : nil
        Self.settleFirstOutput(cursesDraws: encoder == nil)
        prepareAttributes()
    }

    /// Starts curses with `start` at `size`: curses reads the size from LINES and COLUMNS, which are put back after,
    /// so programs the process starts later (the tests start the shop in tmux) do not inherit it.
    private static func sized(_ size: Size, _ start: () -> OpaquePointer?) -> OpaquePointer? {
        let saved: [(String, String?)] = ["LINES", "COLUMNS"].map { name in (name, getenv(name).map { String(cString: $0) }) }
        setenv("LINES", String(size.rows), 1)
        setenv("COLUMNS", String(size.columns), 1)
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        return start()
    }

    /// The shop's own encoder when the loaded terminal speaks ANSI and the user did not ask for curses.
    private static func encoder(colorMode: ColorMode, environment: [String: String]) -> FrameEncoder? {
        guard environment[outputVariable] != "curses", let dialect = AnsiDialect.ofLoadedTerminal(colorMode: colorMode) else { return nil }
        return FrameEncoder(
            dialect: dialect, marksFrames: FrameEncoder.marksFrames(in: environment), width: { Int(sf_wcwidth(wchar_t(bitPattern: $0))) })
    }

    /// Whether frames are written as the shop's own bytes (true) or through curses' `doupdate`.
    var writesDirectly: Bool { encoder != nil }
    var cellPixels: CellPixels { CellPixels.measured(on: outputFD) ?? .usual }

    private func prepareAttributes() {
        for (index, role) in StyleRole.allCases.enumerated() {
            let look = Theme.look(for: role, in: colorMode)
            var attr: attr_t = sf_a_normal()
            if look.bold { attr |= sf_a_bold() }
            if look.reverse { attr |= sf_a_reverse() }
            if look.underline { attr |= sf_a_underline() }
            if look.dim { attr |= sf_a_dim() }
            var pair: Int16 = 0
            if colorMode != .monochrome, look.foreground >= 0 || look.background >= 0 {
                pair = Int16(index + 1)
                init_pair(pair, look.foreground, look.background)
            }
            roleAttributes.append((attr, pair))
        }
    }

    /// Works out what changed since the last frame, then sends it: one write.
    func draw(_ frame: Frame) {
        guard isActive else { return }
        prepare(frame)
        send()
    }

    /// Works out the change from the last frame without sending it: the shop's own bytes, or the changed
    /// cells written into curses' virtual screen.
    func prepare(_ frame: Frame) {
        guard isActive else { return }
        if encoder != nil {
            FrameEncoder.encode(&encoder!, from: &previous, to: frame)
            previous = frame
        } else {
            writeChanges(frame)
        }
    }

    /// Sends what `prepare` worked out: the bytes in one write, or one `doupdate`.
    func send() {
        guard isActive else { return }
        // The encoder read in place: bound with `if let`, all of it (its tables, its pictures) was copied at every key.
        if encoder != nil {
            writeAll(encoder!.output, to: outputFD)
        } else {
            wnoutrefresh(sf_stdscr())
            doupdate()
        }
    }

    /// Writes the cells that changed since the last frame into curses' virtual screen, drawing nothing yet.
    private func writeChanges(_ frame: Frame) {
        let window = sf_stdscr()
        let old = previous?.size == frame.size ? previous : nil
        if old == nil { werase(window) }
        var buffer: [wchar_t] = []
        let columnCount = frame.size.columns
        // Unwrapped once: an optional frame bound per cell copied and released its arrays for every cell.
        let hasOld = old != nil
        let oldFrame = old ?? frame
        let hasClusters = !frame.clusters.isEmpty || !oldFrame.clusters.isEmpty
        let roleAttributes = self.roleAttributes
        frame.packed.withUnsafeBufferPointer { cells in
            oldFrame.packed.withUnsafeBufferPointer { oldCells in
                for row in 0..<frame.size.rows {
                    // Most rows of most frames are as they were: one memory comparison skips them.
                    if hasOld, frame.row(row, matches: oldFrame) { continue }
                    let base = row * columnCount
                    for column in 0..<columnCount {
                        let index = base + column
                        let cell = cells[index]
                        if cell.isContinuation { continue }
                        if hasOld, cell == oldCells[index], !hasClusters || !cell.isCluster || frame.cell(at: index, matches: oldFrame) {
                            continue
                        }
                        var (attr, pair) = roleAttributes[Int(cell.role.rawValue)]
                        if cell.isBold { attr |= sf_a_bold() }
                        if cell.isUnderlined { attr |= sf_a_underline() }
                        if cell.isASCII {
                            _ = sf_put_scalar(window, Int32(row), Int32(column), wchar_t(bitPattern: cell.code), attr, pair)
                            continue
                        }
                        let columns = column + 1 < columnCount && cells[index + 1].isContinuation ? 2 : 1
                        // Most other cells (borders, markers, one CJK character) are one scalar curses measures as the
                        // frame does: drawn as is, without working out pieces.
                        if !cell.isCluster, Int(sf_wcwidth(wchar_t(bitPattern: cell.code))) == columns {
                            _ = sf_put_scalar(window, Int32(row), Int32(column), wchar_t(bitPattern: cell.code), attr, pair)
                            continue
                        }
                        for piece in CellPieces.pieces(
                            of: frame.text(of: cell), columns: columns, width: { Int(sf_wcwidth(wchar_t(bitPattern: $0.value))) })
                        {
                            buffer.removeAll(keepingCapacity: true)
                            for scalar in piece.text.unicodeScalars { buffer.append(wchar_t(bitPattern: scalar.value)) }
                            buffer.append(0)
                            _ = sf_put_cell(window, Int32(row), Int32(column + piece.offset), buffer, attr, pair)
                        }
                    }
                }
            }
        }
        previous = frame
    }

    /// Reads the terminal's size after SIGWINCH and tells curses; returns the new size.
    func adoptTerminalSize() -> Size {
        var rows: Int32 = 0
        var columns: Int32 = 0
        if sf_window_size(1, &rows, &columns) == 0, rows > 0, columns > 0 {
            let bounded = Size(columns: Int(columns), rows: Int(rows)).bounded
            // Where the shop writes its own frames, curses' screens stay one column wide (see `init`).
            resize_term(Int32(bounded.rows), Int32(encoder == nil ? bounded.columns : 1))
            size = bounded
            if encoder != nil {
                // Resizing touched curses' screen, and its next read would redraw it over the shop's frame:
                // let it draw now, before the repaint below.
                wnoutrefresh(sf_stdscr())
                doupdate()
            }
        }
        // The terminal may have cleared or reflowed on resize: repaint everything next time.
        invalidate()
        return size
    }

    /// Forgets what is on screen so the next draw repaints everything (Ctrl-L).
    func invalidate() {
        previous = nil
        // The shop's own repaint clears the screen itself; curses' `clearok` would touch its screen, and its
        // next read would then draw over the shop's frame.
        if encoder == nil { clearok(sf_stdscr(), true) }
    }

    /// Leaves curses: cursor visible, alternate screen left, modes restored. Harmless when repeated.
    func restore() {
        guard isActive else { return }
        isActive = false
        // curses believes the pen is plain; leave it so.
        if let encoder { writeAll(encoder.releasingPictures + Array("\u{1B}[m".utf8), to: outputFD) }
        if asksForSGRMouse { writeAll("\u{1B}[?1006l", to: outputFD) }
        curs_set(1)
        _ = sf_mouse(0)
        endwin()
        if let screen { delscreen(screen) }
        screen = nil
    }
}

extension NCursesScreen: LiveObject {}
