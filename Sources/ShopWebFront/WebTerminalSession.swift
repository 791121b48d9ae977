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

/// Why a browser session ended, as the log names it.
enum WebSessionEnding: String, Sendable {
    case shopExited = "finished"
    case pageGone = "page went away"
    case idle = "idle"
    case tooLong = "reached the longest session"
    case inputFlood = "input too fast"
    case badMessage = "a message it cannot take"
    case shutdown = "server shutting down"
    case signedOut = "signed out"
    case accountMerged = "account merged"
}

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
        if let closed = await serve(inbound: inbound, outbound: outbound, loop: loop) { front.log(closed) }
    }

    /// Runs the session; returns the log line for its end, or nil when it never started.
    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, loop: any EventLoop) async -> String? {
        let now = ContinuousClock.now
        if let refusal = front.admission.admitConnection(from: address, at: now) ?? front.admission.beginGuestSession(from: address) {
            front.refusals.log("refused a session", "web: refused a session from \(address): \(refusal)")
            await Self.close(outbound, notice: Translation.forLocale(locale).string(WebNotice.refusal(refusal)), code: .unknown(1013))
            return nil
        }
        defer { front.admission.endGuestSession(from: address) }

        var environment = front.command.environment
        environment["TERM"] = "xterm-256color"
        SessionLanguage.pass(locale, into: &environment)
        let (arguments, customer) = front.command.launchBrowserGuest(
            environment: &environment, account: signedIn?.id, session: signedIn?.session)
        let size = front.command.bounded(requested)
        let process: PseudoTerminalProcess
        do {
            process = try await front.command.start(arguments: arguments, environment: environment, size: size)
        } catch {
            front.log("web: cannot start a session: \(error)")
            await Self.close(outbound, notice: "The shop could not start a session just now. Try again in a minute.", code: .unexpectedServerError)
            return nil
        }
        let (number, stops) = front.sessions.add(signedIn: signedIn)
        defer { front.sessions.remove(number) }
        front.log(
            "web session \(number) open: \(customer) from \(address), pid \(process.pid), xterm-256color \(size)\(size == requested ? "" : " (asked for \(requested))")\(process.placeNote)"
        )

        let ending: WebSessionEnding
        do {
            let pty = try await NIOPipeBootstrap(group: loop).takingOwnershipOfDescriptor(inputOutput: process.takeTerminal()) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
            ending = try await pty.executeThenClose { fromShop, toShop in
                await relay(process: process, fromShop: fromShop, toShop: toShop, inbound: inbound, outbound: outbound, stops: stops)
            }
        } catch {
            front.log("web session \(number): cannot relay the terminal: \(error)")
            process.signal(SIGHUP)
            ending = .shopExited
        }

        let termination = await Self.reap(process)
        let crashed = ending == .shopExited && Self.isCrash(termination)
        if ending != .pageGone {
            let (notice, code) = WebNotice.ending(ending, crashed: crashed, termination: termination, limits: front.limits)
            await Self.close(
                outbound, notice: Translation.forLocale(locale).string(notice), code: code, signedOut: [.signedOut, .accountMerged].contains(ending))
        }
        return "web session \(number) closed: \(crashed ? "crashed" : ending.rawValue), pid \(process.pid) \(termination)\(process.placeNote)"
    }

    /// Races the shop's output, the page's input and the session's clocks; the first to finish is the ending.
    private func relay(
        process: PseudoTerminalProcess, fromShop: NIOAsyncChannelInboundStream<ByteBuffer>, toShop: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, stops: AsyncStream<WebSessionEnding>
    ) async -> WebSessionEnding {
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

    /// A signal other than the ones used to end a session on purpose.
    private static func isCrash(_ termination: ProcessTermination) -> Bool {
        guard case .signalled(let number) = termination else { return false }
        return ![SIGHUP, SIGTERM, SIGINT, SIGKILL].contains(number)
    }
}

/// When the page last sent a key, shared by the input relay and the idle clock.
private final class LastInput: Sendable, LiveObject {
    let time = Mutex(ContinuousClock.now)
}

/// What a page may send besides keystrokes, as a text message.
enum WebControlMessage: Equatable {
    case resize(TerminalSize)

    /// Parses `{"type":"resize","columns":120,"rows":40}`; nil for anything else.
    init?(_ text: String) {
        guard text.utf8.count <= 256,
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            object["type"] as? String == "resize",
            let columns = object["columns"] as? Int, let rows = object["rows"] as? Int,
            (1...10_000).contains(columns), (1...10_000).contains(rows)
        else { return nil }
        self = .resize(TerminalSize(columns: columns, rows: rows))
    }
}

/// The words a page shows when its session is refused or ends.
enum WebNotice {
    /// Why a visit was not let in, in words the page shows in the visitor's language.
    static func refusal(_ refusal: AdmissionControl.Refusal) -> Localized {
        switch refusal {
        case .tooManyConnections(_, let limit): Localized("Too many visits from your address (\(limit) a minute). Try again in a minute.")
        case .full(let limit), .guestsFull(let limit): Localized("The shop is full (\(limit) visitors). Try again in a few minutes.")
        case .draining: Localized("The shop is closing for maintenance. Try again in a few minutes.")
        case .noGuests: Localized("This shop takes no visitors from the web just now.")
        case .tooManyGuests(_, let limit):
            .plural(
                "Your address has \(limit) shop open already. Close one and try again.",
                "Your address has \(limit) shops open already. Close one and try again.", count: limit)
        }
    }

    static func ending(
        _ ending: WebSessionEnding, crashed: Bool, termination: ProcessTermination, limits: WebFrontLimits
    ) -> (Localized, WebSocketErrorCode) {
        switch ending {
        case .shopExited where crashed:
            (Localized("This session stopped unexpectedly (\(termination.description)). Reconnect to go on."), .unexpectedServerError)
        case .shopExited, .pageGone: (Localized("You left the shop."), .normalClosure)
        case .idle: (Localized("Closed after \(ServeDuration.describe(limits.idleTimeout)) without a key."), .goingAway)
        case .tooLong: (Localized("Closed after \(ServeDuration.describe(limits.maxSessionLength)), the longest a visit lasts."), .goingAway)
        case .inputFlood: (Localized("Closed: the page sent input faster than anyone types."), .policyViolation)
        case .badMessage:
            (
                Localized("Closed: the page sent a message the shop cannot take (over \(limits.maxMessageBytes / 1024) KiB, or not understood)."),
                .policyViolation
            )
        case .shutdown: (Localized("The shop is closing for maintenance. Try again in a few minutes."), .goingAway)
        case .signedOut:
            (
                Localized("You were signed out (here, in another tab or device, or everywhere from your account). Reconnect to shop as a guest."),
                .goingAway
            )
        case .accountMerged: (Localized("Your account was merged into another. Reconnect to go on in the account it joined."), .goingAway)
        }
    }

    /// `{"type":"ended","text":…}`: the page shows the text over the terminal with a Reconnect button; with
    /// `"signedOut":true`, Reconnect loads the page again, whose account bar then says who is there.
    static func json(ended text: String, signedOut: Bool = false) -> String {
        var object: [String: Any] = ["type": "ended", "text": text]
        if signedOut { object["signedOut"] = true }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
