import CNCurses
import StorefrontUI

/// Reading keys: what curses decodes from stdin, turned into the shop's inputs. The drawing is in
/// NCursesScreen.swift; both run on the main queue, one call at a time.
extension NCursesScreen {
    /// A key as curses decoded it.
    enum Input: Equatable {
        case key(Key)
        /// A left press at a cell, or a turn of the wheel.
        case click(column: Int, row: Int)
        case wheel(down: Bool)
        case interrupt
        case redraw
        case resize
    }

    /// Every key waiting on stdin, decoded; empty when none is.
    func readKeys() -> [Input] {
        guard isActive else { return [] }
        var inputs: [Input] = []
        var character: wint_t = 0
        while true {
            let status = wget_wch(sf_stdscr(), &character)
            if status == sf_err() { break }
            if status == sf_key_code_yes() {
                if let input = Self.functionKey(Int32(character)) { inputs.append(input) }
            } else if let input = Self.character(UInt32(character)) {
                inputs.append(input)
            }
        }
        return inputs
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
        var column: Int32 = 0, row: Int32 = 0
        switch sf_read_mouse(&column, &row) {
        case 1: return .click(column: Int(column), row: Int(row))
        case 4: return .wheel(down: false)
        case 5: return .wheel(down: true)
        default: return nil
        }
    }

    private static func character(_ value: UInt32) -> Input? {
        switch value {
        case 3: return .interrupt                     // Ctrl-C
        case 9: return .key(.tab)
        case 10, 13: return .key(.enter)
        case 12: return .redraw                       // Ctrl-L
        case 27: return .key(.escape)
        case 8, 127: return .key(.backspace)
        case 0..<32: return nil                       // Ctrl-Z, Ctrl-\ and the rest mean nothing here
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .key(.character(Character(scalar)))
        }
    }
}
