import StorefrontUI
import Testing

@testable import TerminalNCurses

/// How a terminal is found to show pictures: kitty by its name, sixel by its answer to DA1, a mosaic in 256
/// colours, the art otherwise; `STOREFRONT_PICTURES` over all, within what the shop can write.
@Suite("Picture capabilities", .ownThreads)
struct PictureCapabilitiesTests {
    static func support(_ mode: ColorMode = .color256, environment: [String: String] = [:], attributes: [Int] = [], direct: Bool = true)
        -> PictureSupport
    {
        PictureCapabilities.support(
            colorMode: mode, charset: .unicode, writesDirectly: direct, environment: environment, deviceAttributes: attributes)
    }

    @Test func theTerminalSaysWhatItDraws() {
        #expect(Self.support(environment: ["TERM": "xterm-kitty"]) == .kitty)
        #expect(Self.support(environment: ["TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"]) == .kitty)
        #expect(Self.support(environment: ["TERM": "xterm-256color"], attributes: [63, 1, 2, 4, 6, 9, 15, 22]) == .sixel)
        #expect(Self.support(environment: ["TERM": "xterm-256color"], attributes: [62, 1, 2, 6, 9, 15, 22]) == .mosaic)
        #expect(Self.support(environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"]) == .iterm2)
        #expect(Self.support(environment: ["TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"]) == .iterm2, "what a remote shell gets from ssh")
        #expect(Self.support(environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"], attributes: [4]) == .iterm2)
        #expect(Self.support(.color8, environment: ["TERM": "xterm"]) == .art, "8 colours cannot tell a picture's shades")
        #expect(Self.support(.monochrome, environment: ["TERM": "xterm-kitty"]) == .art, "NO_COLOR and --theme mono show the art")
        #expect(Self.support(environment: ["TERM": "xterm-kitty"], direct: false) == .art, "where curses draws, the shop writes no pixels")
    }

    /// Over SSH the terminal is asked: kitty's OK makes a mosaic kitty's protocol, DA1's 4 sixel; nothing else changes.
    @Test func whatTheTerminalAnswersTurnsAMosaicIntoPixels() {
        #expect(PictureCapabilities.learned(.kittyGraphics(true), current: .mosaic) == .kitty)
        #expect(PictureCapabilities.learned(.deviceAttributes([63, 1, 4, 22]), current: .mosaic) == .sixel)
        #expect(PictureCapabilities.learned(.deviceAttributes([62, 22]), current: .mosaic) == .mosaic)
        #expect(PictureCapabilities.learned(.kittyGraphics(false), current: .mosaic) == .mosaic)
        #expect(PictureCapabilities.learned(.deviceAttributes([4]), current: .kitty) == .kitty, "kitty's answer came first")
        #expect(PictureCapabilities.learned(.deviceAttributes([4]), current: .art) == .art, "NO_COLOR and 8 colours stay art")
        #expect(PictureCapabilities.asks(current: .mosaic, environment: ["TERM": "xterm-256color"]))
        #expect(!PictureCapabilities.asks(current: .mosaic, environment: ["TERM": "tmux-256color"]), "tmux passes no pixels on")
        #expect(!PictureCapabilities.asks(current: .mosaic, environment: ["TERM": "xterm-256color", "STOREFRONT_PICTURES": "mosaic"]))
        #expect(!PictureCapabilities.asks(current: .kitty, environment: ["TERM": "xterm-kitty"]))
        #expect(
            !PictureCapabilities.asks(current: .mosaic, environment: ["TERM": "xterm-256color", "STOREFRONT_SETTLED_MARKER": "1"]),
            "a recording stays text")
    }

    @Test func aMultiplexerPassesNoPixelsOn() {
        #expect(Self.support(environment: ["TERM": "tmux-256color", "KITTY_WINDOW_ID": "3"], attributes: [4]) == .mosaic)
        #expect(Self.support(environment: ["TERM": "xterm-256color", "TMUX": "/tmp/tmux-0/default,1,0"], attributes: [4]) == .mosaic)
    }

    @Test func theVariableIsObeyedWithinWhatCanBeWritten() {
        #expect(Self.support(environment: ["STOREFRONT_PICTURES": "art", "TERM": "xterm-kitty"]) == .art)
        #expect(Self.support(environment: ["STOREFRONT_PICTURES": "sixel"]) == .sixel)
        #expect(Self.support(environment: ["STOREFRONT_PICTURES": "kitty", "TMUX": "x"]) == .kitty, "asked for, inside tmux too")
        #expect(Self.support(.color8, environment: ["STOREFRONT_PICTURES": "mosaic"]) == .art)
        #expect(Self.support(environment: ["STOREFRONT_PICTURES": "nonsense"]) == .mosaic)
    }

    @Test func theDeviceAttributesAreReadFromTheAnswer() {
        let answer = Array("\u{1B}]11;rgb:0000/0000/0000\u{1B}\\\u{1B}[?63;1;2;4;6;9;15;22c".utf8)
        #expect(BackgroundProbe.deviceAttributes(in: answer) == [63, 1, 2, 4, 6, 9, 15, 22])
        #expect(BackgroundProbe.deviceAttributes(in: Array("garbage".utf8)) == [])
    }
}
