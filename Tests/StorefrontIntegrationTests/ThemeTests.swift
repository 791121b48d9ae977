import Foundation
import StorefrontUI
import Testing

@testable import TerminalNCurses

/// The palettes, light and dark, and how `--theme auto` picks one.
@Suite("Themes", .ownThreads)
struct ThemeTests {
    /// xterm's RGB for a colour of the 256-colour cube or grey ramp (16...255), channels 0...1.
    static func xtermRGB(_ index: Int16) -> [Double] {
        let index = Int(index)
        if index >= 232 { return Array(repeating: Double(8 + 10 * (index - 232)) / 255, count: 3) }
        let levels = [0, 95, 135, 175, 215, 255]
        let cube = index - 16
        return [cube / 36, (cube / 6) % 6, cube % 6].map { Double(levels[$0]) / 255 }
    }

    static func contrast(_ first: [Double], _ second: [Double]) -> Double {
        let (a, b) = (BackgroundProbe.relativeLuminance(first), BackgroundProbe.relativeLuminance(second))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// Every role that draws text, in each 256-colour palette, on the background it is drawn on: its own, or the
    /// palette's (black for dark, white for light, as terminals start): at least 4.5:1, WCAG AA.
    @Test("text colours keep 4.5:1 on their background", arguments: [(ColorMode.color256, [0.0, 0, 0]), (.color256Light, [1.0, 1, 1])])
    func textContrast(mode: ColorMode, paletteBackground: [Double]) {
        for role in StyleRole.allCases where role != .border {
            let look = Theme.look(for: role, in: mode)
            let background = look.background >= 16 ? Self.xtermRGB(look.background) : paletteBackground
            let foreground = look.foreground >= 16 ? Self.xtermRGB(look.foreground) : (paletteBackground[0] > 0.5 ? [0.0, 0, 0] : [1.0, 1, 1])
            #expect(look.foreground < 0 || look.foreground >= 16, "\(role) in \(mode) uses a colour the terminal's palette defines")
            let ratio = Self.contrast(foreground, background)
            #expect(ratio >= 4.5, "\(role) in \(mode): \(String(format: "%.2f", ratio)):1")
        }
    }

    @Test func theLightPaletteIsNotTheDarkOne() {
        #expect(Theme.look(for: .title, in: .color256) != Theme.look(for: .title, in: .color256Light))
        #expect(Theme.look(for: .accent, in: .color8Light).foreground != 3, "no yellow text on white")
    }

    @Test func anOSC11AnswerTellsLightFromDark() {
        #expect(BackgroundProbe.background(oscAnswer: "\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}[?62;22c") == .light)
        #expect(BackgroundProbe.background(oscAnswer: "\u{1B}]11;rgb:fdf6/e3e3/bcbc\u{07}") == .light, "solarized light")
        #expect(BackgroundProbe.background(oscAnswer: "\u{1B}]11;rgb:0000/0000/0000\u{1B}\\") == .dark)
        #expect(BackgroundProbe.background(oscAnswer: "\u{1B}]11;rgb:1e/1e/1e\u{07}") == .dark, "two hex digits a channel")
        #expect(BackgroundProbe.background(oscAnswer: "\u{1B}[?62;22c") == nil, "DA1 alone: the terminal does not say")
    }

    @Test func keysTypedAroundTheAnswersAreKeptForTheShop() {
        let read = Array("a\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\/m\u{1B}[?62;22cü\u{1B}[B".utf8)
        #expect(BackgroundProbe.keys(around: read) == Array("a/mü\u{1B}[B".utf8), "keys before, between and after; an arrow kept")
        #expect(BackgroundProbe.keys(around: Array("\u{1B}]11;rgb:0/0/0\u{07}\u{1B}[?1;2c".utf8)).isEmpty)
        #expect(BackgroundProbe.keys(around: Array(repeating: UInt8(ascii: "x"), count: 300)).count == 128, "what curses can take back")
    }

    @Test func colorFGBGTellsLightFromDark() {
        #expect(BackgroundProbe.background(colorFGBG: "0;15") == .light)
        #expect(BackgroundProbe.background(colorFGBG: "0;default;7") == .light)
        #expect(BackgroundProbe.background(colorFGBG: "15;0") == .dark)
        #expect(BackgroundProbe.background(colorFGBG: "15;8") == .dark)
        #expect(BackgroundProbe.background(colorFGBG: "default") == nil)
    }

    @Test func aPreferenceAndTheBackgroundPickTheMode() {
        func mode(_ preference: ThemePreference, _ background: Background, colors: Int = 256, environment: [String: String] = [:]) -> ColorMode {
            Theme.mode(preference: preference, environment: environment, hasColors: true, colors: colors, background: background)
        }
        #expect(mode(.auto, .light) == .color256Light)
        #expect(mode(.auto, .dark) == .color256)
        #expect(mode(.light, .dark) == .color256Light)
        #expect(mode(.dark, .light) == .color256)
        #expect(mode(.color, .light) == .color256, "color is dark, as it always was")
        #expect(mode(.auto, .light, colors: 8) == .color8Light)
        #expect(mode(.light, .light, environment: ["NO_COLOR": "1"]) == .monochrome)
        #expect(mode(.mono, .light) == .monochrome)
    }
}

/// `--theme auto` in tmux, which answers OSC 11 with its pane's background.
@Suite("Themes in a real terminal", .serialized, .ownThreads)
struct ThemeTerminalTests {
    @Test(
        "auto follows the pane's background; light and dark force one",
        arguments: [
            ("#ffffff", "auto", "38;5;24m"), ("#000000", "auto", "38;5;153m"),
            ("#000000", "light", "38;5;24m"), ("#ffffff", "dark", "38;5;153m"),
        ])
    func autoFollowsTheBackground(paneBackground: String, theme: String, titleStyle: String) throws {
        // NO_COLOR empty: a test runner's own NO_COLOR would make every theme monochrome.
        let terminal = try TmuxTerminal(environment: ["NO_COLOR": ""])
        _ = try terminal.tmux(["select-pane", "-t", "main", "-P", "bg=\(paneBackground)"])
        let binary = try BuiltProduct.requireStorefront()
        try terminal.type("'\(binary)' --data-dir '\(terminal.directory.path)/data' --theme \(theme); echo EXIT=$?")
        try terminal.waitForShop()
        let styled = try terminal.tmux(["capture-pane", "-e", "-p", "-t", "main"])
        // The screen title's row, which only the title colours.
        let title = styled.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        #expect(title.contains(titleStyle) && title.contains(" Products"), "\(theme) on \(paneBackground): \(title.debugDescription)")
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
    }
}
