import CNCurses
import StorefrontUI

/// The sequences a terminal was checked to understand, so frames can be written to it as bytes without
/// curses: cursor addressing, SGR attributes and colours, and erasing, all in their ANSI (ECMA-48) forms.
struct AnsiDialect: Equatable, Sendable {
    var colorMode: ColorMode
    /// Erasing fills with the current background (`bce`); without it only default-background blanks are erased.
    var erasesInBackground: Bool
    /// ECH (`ech`), erasing characters in place, is understood.
    var erasesCharacters: Bool
    /// CUF with a count (`cuf`) is understood.
    var movesForward: Bool
    /// IL and DL with a count (`il`, `dl`) are understood, so a band of rows can be moved.
    var movesLines: Bool
    /// What a full repaint starts with: the terminal's own reset (`sgr0`, which may reset the character set too)
    /// and clear (`clear`, which homes the cursor).
    var resetAndClear: [UInt8]

    /// xterm-256color's: what the stage benchmark and the tests encode for.
    static func xterm(_ colorMode: ColorMode) -> AnsiDialect {
        AnsiDialect(
            colorMode: colorMode, erasesInBackground: true, erasesCharacters: true, movesForward: true, movesLines: true,
            resetAndClear: Array("\u{1B}(B\u{1B}[m\u{1B}[H\u{1B}[2J".utf8)
        )
    }
}

extension AnsiDialect {
    /// The dialect of the terminal curses has loaded, or nil when its terminfo entry says it uses other
    /// sequences (or padding) for something a frame needs; curses then draws, as it can any terminal.
    static func ofLoadedTerminal(colorMode: ColorMode) -> AnsiDialect? {
        let escape = "\u{1B}["
        for (row, column) in [(0, 0), (4, 9), (239, 639)] {
            guard filled("cup", row, column) == "\(escape)\(row + 1);\(column + 1)H" else { return nil }
        }
        guard string("el") == "\(escape)K", let reset = string("sgr0"), let clear = string("clear"),
            !reset.contains("$<"), !clear.contains("$<"), !clear.isEmpty
        else { return nil }
        // Writing the last column of the last row must not scroll: auto-margins need the delayed wrap.
        guard sf_tigetflag("xenl") == 1 || sf_tigetflag("am") == 0 else { return nil }
        let looks = StyleRole.allCases.map { Theme.look(for: $0, in: colorMode) }
        // Any cell may be bold or underlined; dim and reverse only where the mode's roles use them.
        var attributes: [(String, String)] = [("bold", "1"), ("smul", "4")]
        if looks.contains(where: \.dim) { attributes.append(("dim", "2")) }
        if looks.contains(where: \.reverse) { attributes.append(("rev", "7")) }
        for (name, parameter) in attributes where string(name) != "\(escape)\(parameter)m" { return nil }
        if colorMode != .monochrome {
            guard string("op") == "\(escape)39;49m" else { return nil }
            for look in looks {
                if look.foreground >= 0, filled("setaf", Int(look.foreground)) != "\(escape)\(RoleLook.colorParameter(look.foreground, base: 30))m" {
                    return nil
                }
                if look.background >= 0, filled("setab", Int(look.background)) != "\(escape)\(RoleLook.colorParameter(look.background, base: 40))m" {
                    return nil
                }
            }
        }
        return AnsiDialect(
            colorMode: colorMode,
            erasesInBackground: sf_tigetflag("bce") == 1,
            erasesCharacters: filled("ech", 5) == "\(escape)5X",
            movesForward: filled("cuf", 5) == "\(escape)5C",
            movesLines: filled("il", 5) == "\(escape)5L" && filled("dl", 5) == "\(escape)5M",
            resetAndClear: Array(reset.utf8) + Array(clear.utf8)
        )
    }

    private static func string(_ name: String) -> String? {
        sf_tigetstr(name).map { String(cString: $0) }
    }

    private static func filled(_ name: String, _ first: Int, _ second: Int = 0) -> String? {
        guard let capability = sf_tigetstr(name), let result = sf_tiparm(capability, Int32(first), Int32(second)) else { return nil }
        return String(cString: result)
    }
}
