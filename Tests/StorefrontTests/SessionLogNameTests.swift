import StorefrontUI
import TerminalNCurses
import Testing

/// A session's log names its screen, colours and ending in words; these types describe themselves, so the log
/// line interpolates them without the runtime's reflective fallback.
@Suite("Names in a session's log")
struct SessionLogNameTests {
    @Test func endingsCharsetsAndColourModesAreNamedAsTheirCases() {
        let endings: [TerminalSession.Ending] = [.quit, .hangup, .interrupted, .terminated]
        #expect(endings.map { "\($0)" } == ["quit", "hangup", "interrupted", "terminated"])
        #expect(["\(Charset.unicode)", "\(Charset.ascii)"] == ["unicode", "ascii"])
        #expect(ColorMode.allCases.map { "\($0)" } == ["color256", "color256Light", "color8", "color8Light", "monochrome"])
    }
}
