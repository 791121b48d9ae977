import AsyncAlgorithms
import Foundation
import HummingbirdWebSocket
import LiveObjects
import NIOCore
import PseudoTerminal
import Synchronization

/// The sessions started with the page that will show them (`GET /` with the size its tab had last time), each waiting
/// for that page's socket by a one-time token.
///
/// Order of calls: `GET /` makes an `EarlySession` and `add`s it → the session starts and collects its shop's output →
/// the page's body takes `firstFrame(within:afterFirst:)` → the page's socket, with the token, `take`s it and `attach`es → the
/// session relays. A session no socket takes within `adoptionDeadline` ends.
final class EarlySessions: Sendable {
    /// How long a session started with a page waits for that page's socket.
    static let adoptionDeadline: Duration = .seconds(10)
    private let waiting = Mutex<[String: EarlySession]>([:])

    func add(_ session: EarlySession) {
        waiting.withLock { $0[session.token] = session }
    }

    /// The session `token` names, once: only for the address and sign-in that started it, or for its address where
    /// that sign-in has `endedSincePage` (the session then ends as signed out). A token for another visitor is spent
    /// all the same, and that session ends, so a token seen twice is of no use.
    func take(_ token: String, address: String, signInSession: String?, endedSincePage: Bool = false) -> EarlySession? {
        guard let session = waiting.withLock({ $0.removeValue(forKey: token) }) else { return nil }
        let sameSignIn = session.signInSession == signInSession || (endedSincePage && session.signInSession != nil)
        guard session.address == address, sameSignIn else {
            session.abandon()
            return nil
        }
        return session
    }

    func remove(_ token: String) {
        _ = waiting.withLock { $0.removeValue(forKey: token) }
    }

    var count: Int { waiting.withLock { $0.count } }

    /// Every session still waiting ends (the front is stopping): none is taken from now.
    func abandonAll() {
        for session in waiting.withLock({ waiting in
            defer { waiting.removeAll() }
            return Array(waiting.values)
        }) { session.abandon() }
    }
}

/// What a page's socket brings to the session it adopts: its two directions, the size its terminal measured, whether
/// the sign-in its page was drawn for has ended since, and a way to say the session is done with them.
struct AdoptingSocket: Sendable {
    let inbound: WebSocketInboundStream
    let outbound: WebSocketOutboundWriter
    let requested: TerminalSize
    var signedOutSincePage = false
    let done: AsyncStream<Void>.Continuation
}

/// One session started with its page: what its shop wrote before the page's socket came, the first frame in it, and
/// the socket once it comes.
final class EarlySession: Sendable {
    let token: String
    let address: String
    /// The sign-in's session the page was made for; nil for a guest's.
    let signInSession: String?
    /// What the shop may write before the socket comes; past it the session ends.
    static let heldLimit = 1 << 20

    private struct Output {
        var bytes: [UInt8] = []
        /// Where the last whole frame's closing mark ends, once one is written, and when the first was.
        var frameEnd: Int?
        var firstFrame: ContinuousClock.Instant?
        /// How many bytes the page itself holds: the first frame, or none once its body went without one.
        var claimed: Int?
        /// The shop said its first screen is whole (`FrameMarks.firstScreen`, taken out of the bytes).
        var firstScreenWhole = false
        /// The cells of that screen, as the shop wrote them just before its mark (taken out of the bytes too), and how
        /// many bytes came before them: the bytes that draw what the cells show.
        var firstScreenCells: (cells: [UInt8], after: Int)?
        /// The shop's output ended: nothing more will come.
        var ended = false
    }

    private enum Socket {
        case waiting
        case attached(AdoptingSocket)
        case abandoned
    }

    private let output = Mutex(Output())
    private let socket = Mutex(Socket.waiting)
    private let framed: AsyncStream<Void>.Continuation
    private let frameWritten: AsyncStream<Void>
    private let arrivals: AsyncStream<AdoptingSocket>
    private let arrive: AsyncStream<AdoptingSocket>.Continuation

    init(token: String = EarlySession.newToken(), address: String, signInSession: String?) {
        self.token = token
        self.address = address
        self.signInSession = signInSession
        (frameWritten, framed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (arrivals, arrive) = AsyncStream.makeStream(of: AdoptingSocket.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// 128 random bits, URL-safe.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    // MARK: The session's side

    /// Keeps `chunk` of the shop's output; false once more than `heldLimit` waits.
    func collect(_ chunk: [UInt8]) -> Bool {
        let (within, first, whole) = output.withLock { output in
            var start = output.bytes.count
            output.bytes += chunk
            // Its one mark is for the page's wait, not for the screen: taken out, so no page or socket sees it.
            var whole = false
            let markFrom = start - FrameMarks.firstScreen.count + 1
            if !output.firstScreenWhole, let mark = FrameMarks.range(of: FrameMarks.firstScreen, in: output.bytes, from: markFrom) {
                var taken = mark
                if let cells = FrameMarks.cellsEnding(at: mark.lowerBound, in: output.bytes) {
                    output.firstScreenCells = (Array(output.bytes[cells.payload]), cells.whole.lowerBound)
                    taken = cells.whole.lowerBound..<mark.upperBound
                }
                output.bytes.removeSubrange(taken)
                output.firstScreenWhole = true
                whole = true
                start = min(start, taken.lowerBound)
            }
            var from = max(0, start - FrameMarks.end.count + 1)
            let first = output.frameEnd == nil
            while let end = FrameMarks.firstEnd(in: output.bytes, from: from) {
                output.frameEnd = end
                output.firstFrame = output.firstFrame ?? .now
                from = end
            }
            return (output.bytes.count <= Self.heldLimit, first && output.frameEnd != nil, whole)
        }
        if first || whole { framed.yield() }
        return within
    }

    /// The session's output stopped (it failed, or ended): the page waits no longer.
    func noFrame() {
        output.withLock { $0.ended = true }
        framed.finish()
    }

    /// Keeps the shop's `output` until the page's socket comes (nil), or says why the session ends without one: the
    /// shop ended (`.shopExited`), or `wait` on `clock` passed, the token was spent by another visitor, the front is
    /// stopping or the shop wrote more than `heldLimit` (`.neverAdopted`). An ending from outside meanwhile (a
    /// sign-out) waits in the session's stops for its relay: a stream whose reader is cancelled ends, so they are
    /// not watched here.
    func awaitSocket<C: Clock>(collecting output: AsyncChannel<ByteBuffer>, for wait: C.Duration, clock: C) async -> WebSessionEnding? {
        await withTaskGroup(of: WebSessionEnding?.self) { race in
            race.addTask {
                for await chunk in output where !self.collect(Array(buffer: chunk)) { return .neverAdopted }
                return .shopExited
            }
            race.addTask { [arrivals] in
                for await _ in arrivals { return nil }
                return .neverAdopted
            }
            race.addTask { (try? await clock.sleep(for: wait)).map { .neverAdopted } ?? nil }
            let first = await race.next() ?? nil
            race.cancelAll()
            return first
        }
    }

    /// After the wait: the socket if one was attached (even as the wait ended), else nil, and none is taken from now.
    func settle() -> AdoptingSocket? {
        socket.withLock { state in
            if case .attached(let socket) = state { return socket }
            state = .abandoned
            return nil
        }
    }

    /// What the shop wrote that the page does not hold: everything after the part its body carried; and a filter for
    /// what it writes from now, which takes out the first screen's cells and mark where they are still to come.
    func heldForSocket() -> (bytes: [UInt8], filter: FirstScreenMarkFilter) {
        output.withLock { output in
            let from = output.claimed ?? 0
            output.claimed = from
            return (Array(output.bytes[from...]), FirstScreenMarkFilter(finished: output.firstScreenWhole))
        }
    }

    // MARK: The page's side

    /// What the page's body carries of its session: the shop's bytes, and the cells of its first screen where the
    /// shop wrote them with its word that the screen is whole (they show what the bytes draw).
    struct PageFrames: Equatable {
        var bytes: [UInt8]
        var cells: [UInt8]?
    }

    /// The session's frames for the page's body: every whole frame written until the shop says its first screen is
    /// whole, at most `afterFirst` after the first frame and `deadline` after the call; empty when none is written by
    /// then. What the page holds, the socket does not send.
    func firstFrame(within deadline: Duration, afterFirst: Duration) async -> PageFrames {
        let asked = ContinuousClock.now
        // Woken by each frame written and by the shop's word that its first screen is whole.
        while let first = output.withLock({ output in output.firstScreenWhole || output.ended ? nil : output.firstFrame ?? asked + deadline }) {
            let wake = min(first + afterFirst, asked + deadline)
            guard wake > .now else { break }
            await withTaskGroup(of: Void.self) { race in
                race.addTask { [frameWritten] in for await _ in frameWritten { return } }
                race.addTask { try? await Task.sleep(until: wake) }
                await race.next()
                race.cancelAll()
            }
        }
        return output.withLock { output in
            let claimed = output.claimed ?? output.frameEnd ?? 0
            output.claimed = claimed
            // The cells show the screen only where the page holds exactly the bytes written before them.
            let cells = output.firstScreenCells.flatMap { $0.after == claimed ? $0.cells : nil }
            return PageFrames(bytes: Array(output.bytes[..<claimed]), cells: cells)
        }
    }

    // MARK: The socket's side

    /// Hands the page's socket to the session; false when the session no longer waits for one.
    func attach(_ adopting: AdoptingSocket) -> Bool {
        let attached = socket.withLock { state in
            guard case .waiting = state else { return false }
            state = .attached(adopting)
            return true
        }
        if attached { arrive.yield(adopting) }
        return attached
    }

    /// Whether the page's socket may still take the session: false once it was refused, ended or abandoned.
    var isWaitingForSocket: Bool {
        socket.withLock { state in
            if case .waiting = state { true } else { false }
        }
    }

    /// No socket will be taken: the session ends at its next look.
    func abandon() {
        socket.withLock { state in if case .waiting = state { state = .abandoned } }
        arrive.finish()
    }
}

extension EarlySessions: LiveObject {}
extension EarlySession: LiveObject {}
