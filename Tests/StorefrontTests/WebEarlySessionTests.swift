import AsyncAlgorithms
import Clocks
import HTTPTypes
import NIOCore
import PseudoTerminal
import ShopSessions
import TerminalNCurses
import Testing

@testable import ShopWebFront

/// A session started with its page: which bytes the page carries and which its socket sends, who may take it, and
/// why it ends without a socket. The socket's side runs in real processes (`WebEarlySessionJourneyTests`).
@Suite("A session started with its page")
struct WebEarlySessionTests {
    static let begins = "\u{1B}[?2026h", ends = "\u{1B}[?2026l"
    static let preamble = "\u{1B}[?1049h\u{1B}[?1h"

    static func session() -> EarlySession { EarlySession(address: "127.0.0.1", signInSession: nil) }

    @Test func thePageCarriesTheWholeFramesWrittenAndTheSocketSendsWhatFollows() async {
        let session = Self.session()
        let loading = Self.begins + "Products … loading" + Self.ends
        let list = Self.begins + "Products 1 of 24" + Self.ends
        let written = Array((Self.preamble + loading + list + Self.begins + "half a frame").utf8)
        // In chunks that split the first frame's closing mark between them.
        let split = Self.preamble.utf8.count + loading.utf8.count - 3
        #expect(session.collect(Array(written[..<split])))
        #expect(session.collect(Array(written[split...])))
        let page = await session.firstFrame(within: .zero, afterFirst: .zero)
        #expect(String(decoding: page.bytes, as: UTF8.self) == Self.preamble + loading + list, "every whole frame, and no part of the next")
        #expect(page.cells == nil, "the shop gave no cells")
        #expect(String(decoding: session.heldForSocket().bytes, as: UTF8.self) == Self.begins + "half a frame")
        #expect(session.heldForSocket().bytes == Array((Self.begins + "half a frame").utf8), "asked again, the same")
    }

    /// The shop's word that its first screen is whole sends the page at once, without waiting for the deadlines, and
    /// its mark is taken out: neither the page nor the socket carries it, wherever the chunks split it.
    @Test(.timeLimit(.minutes(1))) func theShopsWordThatItsFirstScreenIsWholeSendsThePageAtOnceAndIsTakenOut() async {
        let session = Self.session()
        let mark = "\u{1B}]7766;storefront-first-screen\u{07}"
        let list = Self.begins + "Products 1 of 24" + Self.ends
        let picture = Self.begins + "▀▄▀▄" + Self.ends
        let written = Array((Self.preamble + list + picture + mark + Self.begins + "a key's frame" + Self.ends).utf8)
        let inMark = Self.preamble.utf8.count + list.utf8.count + picture.utf8.count + 5
        #expect(session.collect(Array(written[..<inMark])))
        // Were the page to wait for either deadline, this test would take an hour.
        async let page = session.firstFrame(within: .seconds(3_600), afterFirst: .seconds(3_600))
        #expect(session.collect(Array(written[inMark...])))
        #expect(String(decoding: await page.bytes, as: UTF8.self) == Self.preamble + list + picture + Self.begins + "a key's frame" + Self.ends)
        #expect(session.heldForSocket().bytes.isEmpty, "the page holds all, and no mark is left for the socket")
        // The two modules that may not import each other name the mark and its variable alike.
        #expect(FrameMarks.firstScreen == Array(TerminalSession.firstScreenMarker.utf8) && TerminalSession.firstScreenMarker == mark)
        #expect(SessionCommand.firstScreenMarkerVariable == TerminalSession.firstScreenMarkerVariable)
    }

    /// The first screen's cells, written just before the mark, go to the page with the bytes they show and are taken
    /// out with the mark, wherever the chunks split them; cells the page's bytes do not end at are not used.
    @Test(.timeLimit(.minutes(1))) func theFirstScreensCellsGoToThePageWithTheBytesTheyShow() async {
        let mark = "\u{1B}]7766;storefront-first-screen\u{07}"
        let payload = "12x2\u{1E}-1,-1,0\u{1E}0,0,8,Products\u{1E}"
        let cells = "\u{1B}]7766;storefront-first-screen-cells;" + payload + "\u{07}"
        let list = Self.begins + "Products" + Self.ends
        for split in [3, 40, Self.preamble.utf8.count + list.utf8.count + cells.utf8.count + 2] {
            let session = Self.session()
            let written = Array((Self.preamble + list + cells + mark).utf8)
            #expect(session.collect(Array(written[..<split])))
            #expect(session.collect(Array(written[split...])))
            let page = await session.firstFrame(within: .seconds(3_600), afterFirst: .seconds(3_600))
            #expect(String(decoding: page.bytes, as: UTF8.self) == Self.preamble + list, "split at \(split)")
            #expect(page.cells == Array(payload.utf8), "split at \(split)")
            #expect(session.heldForSocket().bytes.isEmpty)
        }
        // A frame after the mark, in the same chunk: the page carries it, so the cells (the screen before it) are not used.
        let later = Self.session()
        #expect(later.collect(Array((Self.preamble + list + cells + mark + Self.begins + "Cart" + Self.ends).utf8)))
        let page = await later.firstFrame(within: .zero, afterFirst: .zero)
        #expect(String(decoding: page.bytes, as: UTF8.self) == Self.preamble + list + Self.begins + "Cart" + Self.ends)
        #expect(page.cells == nil)
        // Another sequence ending before the mark is not taken for cells, and is left in the bytes.
        let title = "\u{1B}]0;Storefront\u{07}"
        let other = Self.session()
        #expect(other.collect(Array((Self.preamble + list + title + mark).utf8)))
        let titled = await other.firstFrame(within: .zero, afterFirst: .zero)
        #expect(titled.cells == nil && String(decoding: titled.bytes, as: UTF8.self) == Self.preamble + list)
        #expect(String(decoding: other.heldForSocket().bytes, as: UTF8.self) == title)
    }

    @Test func aPageThatWentWithoutAFrameLeavesItAllToTheSocket() async {
        let session = Self.session()
        #expect(session.collect(Array((Self.preamble + Self.begins + "Prod").utf8)))
        #expect(await session.firstFrame(within: .zero, afterFirst: .zero).bytes.isEmpty)
        // The frame ends after the page went: it is the socket's to send, whole.
        #expect(session.collect(Array(("ucts" + Self.ends).utf8)))
        #expect(String(decoding: session.heldForSocket().bytes, as: UTF8.self) == Self.preamble + Self.begins + "Products" + Self.ends)
    }

    @Test func aSessionThatStoppedBeforeAnyFrameLetsThePageGoAtOnce() async {
        let session = Self.session()
        session.noFrame()
        // Were the page to wait the deadline, this test would take an hour.
        #expect(await session.firstFrame(within: .seconds(3_600), afterFirst: .zero).bytes.isEmpty)
    }

    @Test func aTokenIsTakenOnceAndOnlyByTheVisitorItWasMadeFor() {
        let sessions = EarlySessions()
        let guest = EarlySession(address: "192.0.2.1", signInSession: nil)
        let signedIn = EarlySession(address: "192.0.2.1", signInSession: "ses_1")
        sessions.add(guest)
        sessions.add(signedIn)
        #expect(guest.token.count == 22 && guest.token != signedIn.token)
        #expect(sessions.take(guest.token, address: "192.0.2.1", signInSession: nil) === guest)
        #expect(sessions.take(guest.token, address: "192.0.2.1", signInSession: nil) == nil, "spent")
        // Another address, or another sign-in, spends the token: the session ends, and its visitor gets a new one.
        #expect(sessions.take(signedIn.token, address: "192.0.2.1", signInSession: "ses_2") == nil)
        #expect(sessions.take(signedIn.token, address: "192.0.2.1", signInSession: "ses_1") == nil)
        #expect(signedIn.settle() == nil, "abandoned: no socket will be taken")
        #expect(sessions.count == 0)
    }

    @Test func withoutItsSocketASessionEndsAtTheDeadlineWhenItsShopEndsOrWritesTooMuchOrIsAbandoned() async {
        // The deadline: a clock that has always passed it.
        let waiting = AsyncChannel<ByteBuffer>()
        #expect(await Self.session().awaitSocket(collecting: waiting, for: .seconds(10), clock: ImmediateClock()) == .neverAdopted)

        // The shop ended (a clock that never moves).
        let ended = AsyncChannel<ByteBuffer>()
        ended.finish()
        #expect(await Self.session().awaitSocket(collecting: ended, for: .seconds(10), clock: TestClock()) == .shopExited)

        // More than the limit before a socket.
        let flood = AsyncChannel<ByteBuffer>()
        let flooded = Self.session()
        let feeding = Task { await flood.send(ByteBuffer(bytes: [UInt8](repeating: 0x61, count: EarlySession.heldLimit + 1))) }
        #expect(await flooded.awaitSocket(collecting: flood, for: .seconds(10), clock: TestClock()) == .neverAdopted)
        await feeding.value

        // Abandoned: its token spent by another visitor, or the front stopping.
        let abandoned = Self.session()
        abandoned.abandon()
        #expect(await abandoned.awaitSocket(collecting: AsyncChannel<ByteBuffer>(), for: .seconds(10), clock: TestClock()) == .neverAdopted)
        let sessions = EarlySessions()
        let stopping = Self.session()
        sessions.add(stopping)
        sessions.abandonAll()
        #expect(sessions.count == 0)
        #expect(await stopping.awaitSocket(collecting: AsyncChannel<ByteBuffer>(), for: .seconds(10), clock: TestClock()) == .neverAdopted)
    }

    @Test func theClosingMarkIsFoundAcrossWhereItWasSplitAndNotInsideAnotherSequence() {
        let bytes = Array("a\u{1B}[?2026hb\u{1B}[?2026lc\u{1B}[?2026l".utf8)
        let first = FrameMarks.firstEnd(in: bytes, from: 0)
        #expect(first == 18, "just past the first closing mark: a, 8 bytes, b, 8 bytes")
        #expect(FrameMarks.firstEnd(in: bytes, from: first!) == bytes.count)
        #expect(FrameMarks.firstEnd(in: Array("\u{1B}[?2026".utf8), from: 0) == nil)
        #expect(FrameMarks.firstEnd(in: Array("\u{1B}[?12026l".utf8), from: 0) == nil)
    }

    @Test func theTabsSizeComesFromItsCookieWithinBounds() {
        func size(_ cookie: String) -> TerminalSize? { WebFront.pageTerminalSize([.cookie: cookie]) }
        #expect(size("storefront-terminal=120x38") == TerminalSize(columns: 120, rows: 38))
        #expect(size("sf_session=abc; storefront-terminal=80x24; other=1") == TerminalSize(columns: 80, rows: 24))
        for bad in ["0x24", "80x0", "99999x24", "80x", "80x24x2", "-80x24", "ax24", "3000x24", ""] {
            #expect(size("storefront-terminal=" + bad) == nil, "\(bad)")
        }
        #expect(size("other=80x24") == nil)
        #expect(WebFront.pageTerminalSize([:]) == nil)
    }

    @Test func aPrefetchIsToldFromAVisit() {
        #expect(WebFront.isPrefetch([HTTPField.Name("Sec-Purpose")!: "prefetch;prerender"]))
        #expect(WebFront.isPrefetch([HTTPField.Name("Purpose")!: "prefetch"]))
        #expect(!WebFront.isPrefetch([.accept: "text/html"]))
    }

    @Test func theSocketNamesItsSessionByAToken() {
        let token = EarlySession.newToken()
        #expect(WebFront.adoptionToken("/session?columns=100&rows=30&session=\(token)") == token)
        #expect(WebFront.adoptionToken("/session?columns=100&rows=30") == nil)
        for bad in ["short", token + "x", String(token.dropLast()) + "/", String(token.dropLast()) + "%"] {
            #expect(WebFront.adoptionToken("/session?session=\(bad)") == nil, "\(bad)")
        }
        #expect(SessionCommand.synchronizedOutputVariable == "STOREFRONT_SYNCHRONIZED_OUTPUT")
    }
}
