import PseudoTerminal
import ShopModels
import StorefrontUI
import Testing

@testable import ShopWebFront
@testable import TerminalNCurses

/// A session's first screen written into its page as HTML: the cells the shop writes (`FirstScreenCells`), read and
/// drawn by the web front (`WebFirstScreen`), and every payload not as written refused. The page in Chromium is
/// `WebFirstFrameBrowserTests`.
@Suite("The first screen as HTML")
struct WebFirstScreenTests {
    /// What the shop writes for `frame`, without its sequence's start and BEL.
    static func payload(_ frame: Frame) -> [UInt8] {
        let sequence = Array(FirstScreenCells.sequence(of: frame, colorMode: .color256)!.utf8)
        #expect(Array(sequence.prefix(FrameMarks.cellsBegin.count)) == FrameMarks.cellsBegin, "the two modules name the sequence alike")
        #expect(sequence.last == 0x07)
        return Array(sequence.dropFirst(FrameMarks.cellsBegin.count).dropLast())
    }

    static func frame() -> Frame {
        var frame = Frame(size: Size(columns: 12, rows: 3))
        frame.fill(row: 0, style: Style(.header))
        _ = frame.put("Shop <b>&", column: 1, row: 0, style: Style(.header))
        _ = frame.put("›", column: 0, row: 1, style: Style(.accent))
        _ = frame.put("茶 tea", column: 2, row: 1)
        let cells = [
            MosaicCell(symbol: 0x2580, foreground: 196, background: 21), MosaicCell(symbol: 0x2580, foreground: 196, background: 21),
            MosaicCell(symbol: 0x2584, foreground: 46, background: 16),
        ]
        frame.draw(PictureMosaic(columns: 3, rows: 1, cells: cells), in: PictureSlot(digest: "d", column: 9, row: 2, columns: 3, rows: 1))
        return frame
    }

    @Test func aFramesCellsAreDrawnAsRowsOfClassedRunsWithItsTextEscaped() throws {
        let html = try #require(WebFirstScreen.html(Self.payload(Self.frame()), size: (12, 3)))
        let rows = [
            // The header's look on every cell of its row, blanks too: white (231) on blue (24), bold.
            #"<div><span class="f231 b24 B"> Shop &lt;b&gt;&amp;  </span></div>"#,
            // An accent's marker, a gap of the terminal's own blanks, a wide character in a run of its own, plain text.
            #"<div><span class="f214">›</span> <span class="w2">茶</span> tea</div>"#,
            // A picture's cells in their own two colours, one run for each pair.
            #"<div>         <span class="f196 b21">▀▀</span><span class="f46 b16">▄</span></div>"#,
        ]
        #expect(html == #"<div id="first-screen" aria-hidden="true">"# + rows.joined() + "</div>\n")
    }

    @Test func aPensLookIsThePreviewsBoldBrightAndReverseSwapped() {
        #expect(WebFirstScreen.classes(ofPen: "-1,-1,0") == "")
        #expect(WebFirstScreen.classes(ofPen: "1,-1,1") == "f9 B", "a bold basic colour shows bright")
        #expect(WebFirstScreen.classes(ofPen: "1,-1,4") == "fx b1", "reversed: the terminal's background on red")
        #expect(WebFirstScreen.classes(ofPen: "-1,-1,4") == "fx bx", "reversed, the terminal's own colours swap")
        #expect(WebFirstScreen.classes(ofPen: "245,-1,10") == "f245 U D")
        for bad in ["256,-1,0", "-2,-1,0", "1,1,16", "1,1", "1,1,0,0", "a,1,0", ""] { #expect(WebFirstScreen.classes(ofPen: bad) == nil, "\(bad)") }
        #expect(WebFirstScreen.palette.count == 256)
        #expect(
            [WebFirstScreen.palette[1], WebFirstScreen.palette[16], WebFirstScreen.palette[231], WebFirstScreen.palette[255]]
                == ["#cc0000", "#000000", "#ffffff", "#eeeeee"])
    }

    /// A page with its first screen as HTML holds no script that runs before that screen is painted but the loader
    /// of its first scripts, named by their versions; one without it runs them as it is read.
    @Test func aPageWithItsFirstScreenLoadsItsFirstScriptsAfterThePaint() throws {
        let screen = try #require(WebFirstScreen.html(Self.payload(Self.frame()), size: (12, 3)))
        let size = TerminalSize(columns: 12, rows: 3)
        let withScreen = WebPage.html(title: "Shop", first: WebPage.FirstFrame(token: "t", size: size, bytes: [0x41], screen: screen))
        let scripts = withScreen.matches(of: #/<script( [^>]*)?>/#).map { String($0.output.0) }
        #expect(scripts.count == 2 && scripts[0].contains(#"id="first-frame""#), "\(scripts)")
        #expect(scripts[1] == #"<script data-scripts="\#(WebAsset.address("preview.js")) \#(WebAsset.address("connect.js"))">"#)
        #expect(withScreen.contains(scripts[1] + WebAsset.text(of: "after-paint.js") + "</script>"))
        #expect(withScreen.contains(#"<main id="terminal""#) && withScreen.contains(screen + "</main>"))
        #expect(WebPage.contentSecurityPolicy.contains(WebAsset.inlineSources(["after-paint.js"])))

        let without = WebPage.html(title: "Shop", first: WebPage.FirstFrame(token: "t", size: size, bytes: [0x41]))
        #expect(without.contains("<script>" + WebAsset.text(of: "connect.js") + "</script>") && !without.contains("data-scripts"))
        #expect(!without.contains(#"<div id="first-screen""#))
    }

    @Test func aPayloadNotAsWrittenGivesNoHTML() {
        func html(_ payload: String, _ size: (Int, Int) = (4, 1)) -> String? { WebFirstScreen.html(Array(payload.utf8), size: size) }
        #expect(html("4x1\u{1E}-1,-1,0\u{1E}0,0,2,ab") != nil, "the well-formed one the others break")
        let bad = [
            "4x2\u{1E}-1,-1,0\u{1E}0,0,2,ab",  // another size than the page's
            "4x1\u{1E}-1,-1,0\u{1E}0,0,2,ab\u{1E}",  // a row too many
            "4x1\u{1E}-1,-1,0\u{1E}1,0,2,ab",  // no such pen
            "4x1\u{1E}-1,-1,0\u{1E}0,3,2,ab",  // past the row's end
            "4x1\u{1E}-1,-1,0\u{1E}0,0,3,ab",  // more cells than characters
            "4x1\u{1E}-1,-1,0\u{1E}0,0,0,",  // no cells
            "4x1\u{1E}-1,-1,0\u{1E}0,2,1,a\u{1F}0,1,1,b",  // runs out of order
            "4x1\u{1E}-1,-1,0\u{1E}0,0,2,a\u{7}",  // a control character
            "4x1\u{1E}-1,-1,0\u{1E}0,00000001,1,a",  // a number too long
            "4x1\u{1E}-1,-1,0\u{1E}0,-1,1,a",  // a negative column
            "4x1\u{1E}300,-1,0\u{1E}0,0,1,a",  // a colour out of the palette
            "4x1\u{1E}-1,-1,0\u{1E}0,0,1",  // a run without its text
        ]
        for payload in bad { #expect(html(payload) == nil, "\(payload.debugDescription)") }
        #expect(WebFirstScreen.html([0x34, 0x78, 0x31, 0x1E, 0xFF, 0x1E], size: (4, 1)) == nil, "not UTF-8")
        #expect(WebFirstScreen.html([UInt8](repeating: 0x20, count: FrameMarks.cellsLimit + 1), size: (4, 1)) == nil, "too long")
    }

    /// Any payload, however broken, gives nil or HTML whose every tag is one the writer makes: no text from the shop is
    /// ever markup. Seeded, so a failure is the same every run.
    @Test func brokenPayloadsNeverGiveMarkupOfTheirOwn() {
        var generator = SeededBytes(seed: 77)
        let good = Self.payload(Self.frame())
        let alphabet = Array("<>&\"',0123456789-x\u{1E}\u{1F} a".utf8)
        var drawn = 0
        for _ in 0..<3_000 {
            var payload = good
            for _ in 0..<(1 + generator.next() % 4) {
                let at = Int(generator.next() % UInt64(payload.count))
                switch generator.next() % 3 {
                case 0: payload[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: payload.remove(at: at)
                default: payload.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: at)
                }
            }
            guard let html = WebFirstScreen.html(payload, size: (12, 3)) else { continue }
            drawn += 1
            let markup = /<div id="first-screen" aria-hidden="true">|<\/?div>|<span class="[a-zA-Z0-9 ]+">|<\/span>/
            let text = html.replacing(markup, with: "")
            #expect(!text.contains("<") && !text.contains(">"), "\(html)")
        }
        #expect(drawn > 0, "some mutations still parse: the check above ran")
    }
}

/// A small deterministic generator (SplitMix64).
struct SeededBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
