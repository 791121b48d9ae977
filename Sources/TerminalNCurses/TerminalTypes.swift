import CNCurses
import StorefrontUI

/// What a worker process knows of one terminal type from terminfo: whether the shop can draw on it by its own bytes,
/// with which sequences, and in how many colours. Read once per type and colour mode, then shared by every session of
/// that type: immutable, so no session ever writes what another reads.
struct TerminalType: Sendable {
    /// The sequences frames are written in, per colour mode the shop may pick; nil where the entry does not speak them.
    var dialects: [ColorMode: AnsiDialect]
    var colors: Int
    /// The entry names only the old mouse encoding, so the shop asks for SGR reports itself (as `NCursesScreen` does).
    var asksForSGRMouse: Bool
    /// What entering the shop's screen writes, as curses would: the alternate screen, the keypad's application mode
    /// (its arrows then arrive as SS3) and the cursor hidden; and what leaving writes.
    var enter: String
    var leave: String
    /// What turns clicks and the wheel on and off, as curses writes it (`XM`, else xterm's with SGR asked for).
    var mouseOn: String
    var mouseOff: String
}

/// The terminal types this worker has read, by `TERM`; only the main actor touches it, since terminfo's current
/// terminal is one for the whole process.
@MainActor
enum TerminalTypes {
    private static var known: [String: Result<TerminalType, TerminalError>] = [:]

    /// The type `term` names, read from terminfo the first time; why it cannot be drawn on otherwise.
    static func type(_ term: String) -> Result<TerminalType, TerminalError> {
        if let found = known[term] { return found }
        let read = load(term)
        known[term] = read
        return read
    }

    private static func load(_ term: String) -> Result<TerminalType, TerminalError> {
        guard !term.isEmpty else { return .failure(.termUnset) }
        var previous: UnsafeMutablePointer<TERMINAL>?
        guard sf_load_terminal(term, &previous) == 1 else { return .failure(.unknownTerminal(term)) }
        defer { sf_unload_terminal(previous) }
        guard sf_tigetstr("cup") != nil else { return .failure(.cannotAddressCursor(term)) }
        var dialects: [ColorMode: AnsiDialect] = [:]
        for mode in [ColorMode.monochrome, .color8, .color8Light, .color256, .color256Light] {
            dialects[mode] = AnsiDialect.ofLoadedTerminal(colorMode: mode)
        }
        let asksForSGR = sf_tigetstr("XM") == nil && sf_tigetstr("kmous").map { String(cString: $0) } != "\u{1B}[<"
        let mouse: (on: String, off: String) =
            if let xm = sf_tigetstr("XM") {
                (sf_tiparm(xm, 1, 0).map { String(cString: $0) } ?? "", sf_tiparm(xm, 0, 0).map { String(cString: $0) } ?? "")
            } else {
                ("\u{1B}[?1000h" + (asksForSGR ? "\u{1B}[?1006h" : ""), (asksForSGR ? "\u{1B}[?1006l" : "") + "\u{1B}[?1000l")
            }
        return .success(
            TerminalType(
                dialects: dialects, colors: Int(sf_tigetnum("colors")), asksForSGRMouse: asksForSGR,
                enter: ["smcup", "smkx", "civis"].map(capability).joined(), leave: ["cnorm", "rmkx", "rmcup"].map(capability).joined(),
                mouseOn: mouse.on, mouseOff: mouse.off))
    }

    /// A string capability without padding (`$<5>`), which a worker cannot wait out; "" when absent.
    private static func capability(_ name: String) -> String {
        guard let value = sf_tigetstr(name).map({ String(cString: $0) }) else { return "" }
        return value.replacing(/\$<[0-9.*\/]*>/, with: "")
    }
}

/// What a session host prepares before it forks, so every session and worker finds it on shared pages.
public enum TerminalWarmUp {
    /// The terminal types most sessions have, and the pen tables of every colour mode. On the main thread, before any
    /// other thread exists.
    public static func prepare() {
        for mode in ColorMode.allCases { _ = PenTransitions.of(mode) }
        MainActor.assumeIsolated {
            for term in ["xterm-256color", "xterm", "tmux-256color", "screen-256color", "screen", "linux", "vt100"] { _ = TerminalTypes.type(term) }
        }
    }
}

extension CellPixels {
    /// The cell size the terminal on `descriptor` tells (its window's pixels over its cells); nil where it tells none.
    static func measured(on descriptor: Int32) -> CellPixels? {
        var width: Int32 = 0
        var height: Int32 = 0
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard sf_window_pixels(descriptor, &width, &height) == 0, sf_window_size(descriptor, &rows, &columns) == 0, width > 0, height > 0,
            rows > 0, columns > 0
        else { return nil }
        let cell = CellPixels(width: Int(width / columns), height: Int(height / rows))
        return (1...64).contains(cell.width) && (1...128).contains(cell.height) ? cell : nil
    }
}
