import ShopRecording
import TerminalNCurses
import Testing

/// What a recording keeps of the shop's output: everything but the forms, even when a marker is cut between reads.
@Suite("Recording: forms left out")
struct RecordingTests {
    @Test func aFormBetweenMarkersIsReplacedByOnePlaceholderEvenWhenAMarkerIsCut() {
        let begins = Array(TerminalSession.privateBegins.utf8)
        let ends = Array(TerminalSession.privateEnds.utf8)
        var sections = PrivateSections()
        let secret = Array("4242 4242 4242 4242".utf8)
        // The begin marker split over two reads, the form's text, then the end marker split too.
        var kept = sections.recordable(Array("shop ".utf8) + begins.prefix(2))
        #expect(kept == Array("shop ".utf8), "a marker's first bytes are held back")
        kept += sections.recordable(Array(begins.dropFirst(2)) + secret + ends.prefix(1))
        #expect(sections.isInsideForm)
        kept += sections.recordable(Array(ends.dropFirst(1)) + Array(" again".utf8))
        #expect(!sections.isInsideForm)
        #expect(String(decoding: kept, as: UTF8.self) == "shop " + LiveRecording.formPlaceholder + " again")
        #expect(kept.firstRange(of: secret) == nil, "nothing typed in the form is kept")
    }
}
