import CNCurses
import Foundation
import StorefrontUI

/// Reading keys: what curses (or, where the terminal speaks ANSI, `KeyReader`) decodes from stdin, turned into the
/// shop's inputs. The drawing is in NCursesScreen.swift; both run on the main queue, one call at a time.
extension NCursesScreen: SessionScreen {
    /// Curses waits out the escape delay itself, inside its read; the shop's own decoder leaves it to the caller.
    var waitsForEscape: Bool { directKeys?.isWaiting ?? false }
    func flushKeys() -> [Input] { directKeys?.flush() ?? [] }
    /// The terminal going away shows as a read with nothing in it.
    var isGone: Bool { false }
    func write(_ text: String) { writeAll(text, to: STDOUT_FILENO) }

    /// A key as curses decoded it.
    enum Input: Equatable {
        case key(Key)
        /// A left press at a cell, or a turn of the wheel.
        case click(column: Int, row: Int)
        case wheel(down: Bool)
        case interrupt
        case redraw
        case resize
        /// The terminal answered a question the shop asked it (never typed: its `?` would open the help).
        case terminalSaid(TerminalAnswer)
    }

    /// The reader of keys without curses where the shop writes its frames, holding the keys typed ahead; nil where
    /// curses reads them, the keys typed ahead handed back to it.
    static func keyReader(writesDirectly: Bool, typeahead: [UInt8], mouse: Bool) -> KeyReader? {
        if writesDirectly { return KeyReader(typedAhead: typeahead, mouse: mouse) }
        // Handed back last first: curses reads what was pushed back last before the rest.
        for byte in typeahead.reversed() { ungetch(Int32(byte)) }
        return nil
    }

    /// Every key waiting on stdin, decoded; empty when none is.
    func readKeys() -> [Input] {
        guard isActive else { return [] }
        if let direct = directKeys?.read(STDIN_FILENO, blocking: true) { return direct.inputs }
        var read: [(isKeyCode: Bool, value: UInt32)] = []
        var character: wint_t = 0
        while true {
            let status = wget_wch(sf_stdscr(), &character)
            if status == sf_err() { break }
            read.append((status == sf_key_code_yes(), UInt32(character)))
        }
        return Self.inputs(from: read)
    }

    /// The inputs `read` holds. An SGR mouse report (`ESC [ < b ; x ; y M`), which curses passes on as characters
    /// where terminfo names only the old encoding (tmux's and screen's entries) and the shop asked for SGR itself,
    /// becomes the click or wheel it reports.
    static func inputs(from read: [(isKeyCode: Bool, value: UInt32)]) -> [Input] {
        var inputs: [Input] = []
        var index = 0
        while index < read.count {
            let (isKeyCode, value) = read[index]
            if !isKeyCode, value == 27, let (report, length) = sgrMouseReport(read[(index + 1)...]) {
                if let report { inputs.append(report) }
                index += 1 + length
                continue
            }
            if !isKeyCode, value == 27, let (answer, length) = terminalAnswer(read[(index + 1)...]) {
                if let answer { inputs.append(.terminalSaid(answer)) }
                index += 1 + length
                continue
            }
            if isKeyCode {
                if let input = functionKey(Int32(value)) { inputs.append(input) }
            } else if let input = character(value) {
                inputs.append(input)
            }
            index += 1
        }
        return inputs
    }

    /// After an ESC: `[ < button ; column ; row` then `M` (press) or `m` (release), columns and rows from 1. Returns
    /// the input (nil for a release, a move or another button) and how many characters it took; nil when `rest` is
    /// not a whole report.
    private static func sgrMouseReport(_ rest: ArraySlice<(isKeyCode: Bool, value: UInt32)>) -> (Input?, Int)? {
        let prefix = Array("[<".unicodeScalars.map(\.value))
        guard rest.count >= 7, rest.prefix(2).map(\.value) == prefix, !rest.prefix(2).contains(where: \.isKeyCode) else { return nil }
        var fields: [Int] = [0]
        var length = 2
        for (isKeyCode, value) in rest.dropFirst(2) {
            length += 1
            guard !isKeyCode, length <= 24 else { return nil }
            switch value {
            case 0x30...0x39:
                fields[fields.count - 1] = fields[fields.count - 1] * 10 + Int(value - 0x30)
            case 0x3B:
                fields.append(0)
            case 0x4D, 0x6D:
                guard fields.count == 3, fields[1] >= 1, fields[2] >= 1 else { return nil }
                guard value == 0x4D else { return (nil, length) }
                switch fields[0] {
                case 0: return (.click(column: fields[1] - 1, row: fields[2] - 1), length)
                case 64: return (.wheel(down: false), length)
                case 65: return (.wheel(down: true), length)
                default: return (nil, length)
                }
            default:
                return nil
            }
        }
        return nil
    }

    private static func functionKey(_ code: Int32) -> Input? {
        switch code {
        case KEY_UP: .key(.up)
        case KEY_DOWN: .key(.down)
        case KEY_LEFT: .key(.left)
        case KEY_RIGHT: .key(.right)
        case KEY_HOME: .key(.home)
        case KEY_END: .key(.end)
        case KEY_PPAGE: .key(.pageUp)
        case KEY_NPAGE: .key(.pageDown)
        case KEY_BACKSPACE: .key(.backspace)
        case KEY_ENTER: .key(.enter)
        case KEY_RESIZE: .resize
        case KEY_MOUSE: mouse()
        default: nil
        }
    }

    /// The mouse event behind KEY_MOUSE; nil for releases, moves and other buttons.
    private static func mouse() -> Input? {
        var column: Int32 = 0
        var row: Int32 = 0
        switch sf_read_mouse(&column, &row) {
        case 1: return .click(column: Int(column), row: Int(row))
        case 4: return .wheel(down: false)
        case 5: return .wheel(down: true)
        default: return nil
        }
    }

    private static func character(_ value: UInt32) -> Input? {
        switch value {
        case 3: return .interrupt  // Ctrl-C
        case 9: return .key(.tab)
        case 10, 13: return .key(.enter)
        case 12: return .redraw  // Ctrl-L
        case 27: return .key(.escape)
        case 8, 127: return .key(.backspace)
        case 0..<32: return nil  // Ctrl-Z, Ctrl-\ and the rest mean nothing here
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .key(.character(Character(scalar)))
        }
    }
}
