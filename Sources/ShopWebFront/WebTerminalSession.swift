import AsyncAlgorithms
import Foundation
import HummingbirdWebSocket
import LiveObjects
import NIOCore
import NIOPosix
import NIOWebSocket
import PseudoTerminal
import ShopLanguages
import ShopSessions
import Synchronization

/// One browser tab's shop: a guest session on its own pty, relayed over the tab's WebSocket until either side ends.
///
/// Order of events: admission (per address, then a guest slot) → spawn → output, input and the clock race → the
/// first to finish names the ending → the process is asked to end (SIGHUP for a page that went away, SIGTERM
/// otherwise; SIGKILL 5 s later) and reaped → the page is told why and the socket closed → the slot is given back.
struct WebTerminalSession {
    let front: WebFrontContext
    let address: String
    let requested: TerminalSize
    /// The sign-in the page's cookie holds, or nil for a guest.
    var signedIn: WebSignedIn?
    /// The language the browser's `Accept-Language` prefers among the shop's, with its region (`de-CH`); nil leaves the
    /// shop's default.
    var locale: String?

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, loop: any EventLoop) async {
        // Logged once the session has given everything back (pty, process, socket, slot), so the line means it.
        if let closed = await serve(.socket(inbound, outbound), loop: loop) { front.log(closed) }
    }

    /// A page drawn signed in whose sign-in ended before its socket came: the tab is told so, and no shop starts.
    func tellSignedOutSincePage(_ outbound: WebSocketOutboundWriter) async {
        front.log("web: a tab from \(address) came after its page's sign-in ended; told it was signed out")
        await Self.close(outbound, notice: Translation.forLocale(locale).string(WebNotice.signedOut), code: .goingAway, signedOut: true)
    }

    /// A page drawn signed in whose sign-in cannot be read just now (the storage failed): the tab is told to come
    /// back, and no shop starts, neither the account's unchecked nor a guest's under "Signed in as".
    func tellSignInUnreadable(_ outbound: WebSocketOutboundWriter, problem: String) async {
        front.refusals.log("sign-in unreadable", "web: the sign-in of a tab from \(address) could not be read: \(problem)")
        await Self.close(outbound, notice: Translation.forLocale(locale).string(WebSignIn.cannotCheck), code: .unknown(1013))
    }

    /// Runs a session started with its page (`GET /`): it collects its shop's output until the page's socket comes
    /// for it (`early`), then relays as any other.
    func runEarly(_ early: EarlySession, loop: any EventLoop) async {
        if let closed = await serve(.early(early), loop: loop) { front.log(closed) }
    }

    /// Where the session's page is: its socket already, or a page still loading that will send one.
    private enum Attachment {
        case socket(WebSocketInboundStream, WebSocketOutboundWriter)
        case early(EarlySession)
    }

    /// Runs the session; returns the log line for its end, or nil when it never started.
    private func serve(_ attachment: Attachment, loop: any EventLoop) async -> String? {
        let now = ContinuousClock.now
        let early: EarlySession? = if case .early(let early) = attachment { early } else { nil }
        // However it ends, a page waiting for its first frame waits no longer, and the token is spent.
        defer {
            if let early {
                // Abandoned first: a page woken by the end sees no socket may take the session, and offers no token.
                early.abandon()
                early.noFrame()
                front.early.remove(early.token)
            }
        }
        if let refusal = front.admission.admitConnection(from: address, at: now) ?? front.admission.beginGuestSession(from: address) {
            front.refusals.log("refused a session", "web: refused a session from \(address): \(refusal)")
            if case .socket(_, let outbound) = attachment {
                await Self.close(outbound, notice: Translation.forLocale(locale).string(WebNotice.refusal(refusal)), code: .unknown(1013))
            }
            return nil
        }
        defer { front.admission.endGuestSession(from: address) }

        var environment = front.command.environment
        environment["TERM"] = "xterm-256color"
        environment[SessionCommand.synchronizedOutputVariable] = "1"
        if early != nil { environment[SessionCommand.firstScreenMarkerVariable] = "1" }
        SessionLanguage.pass(locale, into: &environment)
        let (arguments, customer) = front.command.launchBrowserGuest(
            environment: &environment, account: signedIn?.id, session: signedIn?.session)
        let size = front.command.bounded(requested)
        let process: PseudoTerminalProcess
        do {
            process = try await front.command.start(arguments: arguments, environment: environment, size: size)
        } catch {
            front.log("web: cannot start a session: \(error)")
            if case .socket(_, let outbound) = attachment {
                await Self.close(
                    outbound, notice: "The shop could not start a session just now. Try again in a minute.", code: .unexpectedServerError)
            }
            return nil
        }
        let (number, stops) = front.sessions.add(signedIn: signedIn)
        defer { front.sessions.remove(number) }
        front.log(
            "web session \(number) open: \(customer) from \(address), pid \(process.pid), xterm-256color \(size)\(size == requested ? "" : " (asked for \(requested))")\(early == nil ? "" : ", started with its page")\(process.placeNote)"
        )

        let ending: WebSessionEnding
        var socket: (outbound: WebSocketOutboundWriter, done: AsyncStream<Void>.Continuation?)?
        if case .socket(_, let outbound) = attachment { socket = (outbound, nil) }
        do {
            let pty = try await NIOPipeBootstrap(group: loop).takingOwnershipOfDescriptor(inputOutput: process.takeTerminal()) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
            let (ended, adopted) = try await pty.executeThenClose { fromShop, toShop in
                switch attachment {
                case .socket(let inbound, let outbound):
                    let ending = await relay(
                        process: process, fromShop: fromShop, toShop: toShop, inbound: inbound, outbound: outbound, stops: stops)
                    return (ending, AdoptingSocket?.none)
                case .early(let early):
                    return await adopt(
                        early, number: number, process: process, size: size, fromShop: fromShop, toShop: toShop, stops: stops)
                }
            }
            ending = ended
            if let adopted { socket = (adopted.outbound, adopted.done) }
        } catch {
            front.log("web session \(number): cannot relay the terminal: \(error)")
            process.signal(SIGHUP)
            ending = .shopExited
        }

        let termination = await Self.reap(process)
        let crashed = ending == .shopExited && termination.isCrash(besides: Self.endedOnPurpose)
        if let socket {
            if ending != .pageGone {
                let (notice, code) = WebNotice.ending(ending, crashed: crashed, termination: termination, limits: front.limits)
                await Self.close(
                    socket.outbound, notice: Translation.forLocale(locale).string(notice), code: code,
                    signedOut: [.signedOut, .accountMerged].contains(ending))
            }
            socket.done?.finish()
        }
        return "web session \(number) closed: \(crashed ? "crashed" : ending.rawValue), pid \(process.pid) \(termination)\(process.placeNote)"
    }

    /// A session started with its page: its shop's output is kept (the first frame for the page's body) until the
    /// page's socket comes, the deadline passes, or the session is ended; then it relays from what the page lacks.
    private func adopt(
        _ early: EarlySession, number: Int, process: PseudoTerminalProcess, size: TerminalSize, fromShop: NIOAsyncChannelInboundStream<ByteBuffer>,
        toShop: NIOAsyncChannelOutboundWriter<ByteBuffer>, stops: AsyncStream<WebSessionEnding>
    ) async -> (WebSessionEnding, AdoptingSocket?) {
        // The shop's output passes through a channel with no room, so a slow page still holds the shop back.
        let output = AsyncChannel<ByteBuffer>()
        return await withTaskGroup(of: Void.self) { pump in
            pump.addTask {
                do {
                    for try await chunk in fromShop { await output.send(chunk) }
                } catch {
                    // EIO: the shop closed its terminal.
                }
                output.finish()
            }
            defer { pump.cancelAll() }
            let waited = await early.awaitSocket(collecting: output, for: EarlySessions.adoptionDeadline, clock: ContinuousClock())
            front.early.remove(early.token)
            guard let adopted = early.settle() else {
                let ending = waited ?? .neverAdopted
                if ending != .shopExited { process.signal(SIGHUP) }
                return (ending, nil)
            }
            front.log("web session \(number): its page's socket came, \(adopted.requested)\(adopted.signedOutSincePage ? ", signed out since" : "")")
            if adopted.signedOutSincePage {
                process.signal(SIGTERM)
                return (.signedOut, adopted)
            }
            let measured = front.command.bounded(adopted.requested)
            if measured != size { try? process.resize(to: measured) }
            // What the shop wrote before the socket came and the page does not hold, then what it writes from now, with
            // its first screen's cells and mark taken out should they come only now.
            let (held, filter) = early.heldForSocket()
            let later = output.compactMap { chunk -> ByteBuffer? in
                // Once they are out, a chunk is not copied to be looked at.
                if filter.isFinished { return chunk }
                let passed = filter.pass(Array(buffer: chunk))
                return passed.isEmpty ? nil : ByteBuffer(bytes: passed)
            }
            let ending = await relay(
                process: process, fromShop: chain((held.isEmpty ? [] : [ByteBuffer(bytes: held)]).async, later), toShop: toShop,
                inbound: adopted.inbound, outbound: adopted.outbound, stops: stops)
            return (ending, adopted)
        }
    }

    /// Races the shop's output, the page's input and the session's clocks; the first to finish is the ending.
    private func relay<ShopOutput: AsyncSequence & Sendable>(
        process: PseudoTerminalProcess, fromShop: ShopOutput, toShop: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, stops: AsyncStream<WebSessionEnding>
    ) async -> WebSessionEnding where ShopOutput.Element == ByteBuffer {
        let lastInput = LastInput()
        let started = ContinuousClock.now
        let limits = front.limits
        let command = front.command
        return await withTaskGroup(of: WebSessionEnding.self) { group in
            group.addTask {
                do {
                    for try await chunk in fromShop {
                        do { try await outbound.write(.binary(chunk)) } catch { return .pageGone }
                    }
                } catch {
                    // EIO: the shop closed its terminal.
                }
                return .shopExited
            }
            group.addTask {
                var allowance = InputAllowance(limits: limits, now: .now)
                do {
                    for try await message in inbound.messages(maxSize: limits.maxMessageBytes) {
                        let now = ContinuousClock.now
                        switch message {
                        case .binary(let bytes):
                            guard allowance.take(bytes.readableBytes, at: now) else { return .inputFlood }
                            lastInput.time.withLock { $0 = now }
                            try await toShop.write(bytes)
                        case .text(let text):
                            guard allowance.take(text.utf8.count, at: now) else { return .inputFlood }
                            guard let control = WebControlMessage(text) else { return .badMessage }
                            switch control {
                            case .resize(let size): try? process.resize(to: command.bounded(size))
                            }
                        }
                    }
                } catch {
                    return Self.isProtocolViolation(error) ? .badMessage : .pageGone
                }
                return .pageGone
            }
            group.addTask {
                while true {
                    let deadline = min(lastInput.time.withLock { $0 } + limits.idleTimeout, started + limits.maxSessionLength)
                    do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return .shopExited }
                    let now = ContinuousClock.now
                    if now >= started + limits.maxSessionLength { return .tooLong }
                    if now - lastInput.time.withLock({ $0 }) >= limits.idleTimeout { return .idle }
                }
            }
            group.addTask {
                for await reason in stops { return reason }
                return .shopExited
            }
            let first = await group.next() ?? .shopExited
            group.cancelAll()
            // The shop's output ends once it is gone; the other side's input once the socket closes.
            if first != .shopExited { process.signal(first == .pageGone ? SIGHUP : SIGTERM) }
            return first
        }
    }

    /// Says why on the page (a text message the page shows), then closes the socket with `code`.
    static func close(_ outbound: WebSocketOutboundWriter, notice: String, code: WebSocketErrorCode, signedOut: Bool = false) async {
        try? await outbound.write(.text(WebNotice.json(ended: notice, signedOut: signedOut)))
        // A close reason is at most 123 bytes; the page shows the notice sent before it.
        try? await outbound.close(code, reason: String(notice.utf8.prefix(120)) ?? "")
    }

    /// Waits for the process to end, killing it if it outlives 5 s.
    private static func reap(_ process: PseudoTerminalProcess) async -> ProcessTermination {
        let killer = Task {
            try await Task.sleep(for: .seconds(5))
            process.signal(SIGKILL)
        }
        defer { killer.cancel() }
        return await process.exited()
    }

    /// Whether the page broke the protocol (a message over the limit, a bad frame) rather than went away: the
    /// library's own error for these is internal, so it is told by the close code it names.
    static func isProtocolViolation(_ error: any Error) -> Bool {
        let text = String(describing: error)
        return ["messageTooLarge", "protocolError", "dataInconsistentWithMessage"].contains { text.contains($0) }
    }

    /// The signals a session's shop is ended with on purpose (SIGKILL too: a session past its grace is killed).
    private static let endedOnPurpose = [SIGHUP, SIGTERM, SIGINT, SIGKILL]
}

/// When the page last sent a key, shared by the input relay and the idle clock.
private final class LastInput: Sendable, LiveObject {
    let time = Mutex(ContinuousClock.now)
}
