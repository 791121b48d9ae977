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
/// the page's body takes `firstFrame(within:)` → the page's socket, with the token, `take`s it and `attach`es → the
/// session relays. A session no socket takes within `adoptionDeadline` ends.
final class EarlySessions: Sendable {
    /// How long a session started with a page waits for that page's socket.
    static let adoptionDeadline: Duration = .seconds(10)
    /// After the first frame, how long the page's body waits for another before it goes.
    static let quietAfterFrame: Duration = .milliseconds(12)
    /// How long after the first frame the page's body waits for more at most.
    static let framesAfterFirst: Duration = .milliseconds(30)

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
        /// Where the last whole frame's closing mark ends, once one is written, and when it was.
        var frameEnd: Int?
        var firstFrame: ContinuousClock.Instant?
        var lastFrame: ContinuousClock.Instant?
        /// How many bytes the page itself holds: the first frame, or none once its body went without one.
        var claimed: Int?
        /// The shop said its first screen is whole (`FrameMarks.firstScreen`, taken out of the bytes).
        var firstScreenWhole = false
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
                output.bytes.removeSubrange(mark)
                output.firstScreenWhole = true
                whole = true
                start = min(start, mark.lowerBound)
            }
            var from = max(0, start - FrameMarks.end.count + 1)
            let first = output.frameEnd == nil
            while let end = FrameMarks.firstEnd(in: output.bytes, from: from) {
                output.frameEnd = end
                output.lastFrame = .now
                output.firstFrame = output.firstFrame ?? output.lastFrame
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

    /// What the shop wrote that the page does not hold: everything after the part its body carried.
    func heldForSocket() -> [UInt8] {
        output.withLock { output in
            let from = output.claimed ?? 0
            output.claimed = from
            return Array(output.bytes[from...])
        }
    }

    // MARK: The page's side

    /// The session's frames for the page's body: every whole frame written until the shop says its first screen is
    /// whole, or, where it has not said so, until none has come for `quiet` after the first (the catalog's list follows
    /// its loading line, and the list's picture the list, within a few ms); at most `afterFirst` after the first frame
    /// and `deadline` after the call; empty when none is written by then. What the page holds, the socket does not send.
    func firstFrame(
        within deadline: Duration, quiet: Duration = EarlySessions.quietAfterFrame, afterFirst: Duration = EarlySessions.framesAfterFirst
    ) async -> [UInt8] {
        let asked = ContinuousClock.now
        if output.withLock({ $0.frameEnd == nil }) {
            await withTaskGroup(of: Void.self) { race in
                race.addTask { [frameWritten] in for await _ in frameWritten { return } }
                race.addTask { try? await Task.sleep(for: deadline) }
                await race.next()
                race.cancelAll()
            }
        }
        // Then until no frame has come for `quiet`, `afterFirst` at most: the shop's next few frames follow its first
        // within milliseconds, and the browser is seldom ready for the body sooner.
        while let (first, last) = output.withLock({ output in
            output.firstScreenWhole || output.ended ? nil : output.firstFrame.flatMap { first in output.lastFrame.map { (first, $0) } }
        }) {
            let wake = min(last + quiet, first + afterFirst, asked + deadline)
            guard wake > .now else { break }
            // Woken by the quiet's end, or sooner by the shop's word that its first screen is whole.
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
            return Array(output.bytes[..<claimed])
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

/// Synchronized output's closing mark, which ends each of a web session's frames (`STOREFRONT_SYNCHRONIZED_OUTPUT`).
enum FrameMarks {
    static let end = Array("\u{1B}[?2026l".utf8)
    /// What a session started with its page writes once its first screen is whole (`STOREFRONT_FIRST_SCREEN_MARKER`).
    static let firstScreen = Array("\u{1B}]7766;storefront-first-screen\u{07}".utf8)

    /// Where `mark` is first found in `bytes` at or after `start`; nil when it is not.
    static func range(of mark: [UInt8], in bytes: [UInt8], from start: Int) -> Range<Int>? {
        guard let first = mark.first else { return nil }
        var index = max(0, start)
        while index + mark.count <= bytes.count {
            if bytes[index] == first, bytes[index..<(index + mark.count)].elementsEqual(mark) { return index..<(index + mark.count) }
            index += 1
        }
        return nil
    }

    /// The index just past the first closing mark at or after `start`; nil when there is none.
    static func firstEnd(in bytes: [UInt8], from start: Int) -> Int? {
        range(of: end, in: bytes, from: start)?.upperBound
    }
}

extension EarlySessions: LiveObject {}
extension EarlySession: LiveObject {}
