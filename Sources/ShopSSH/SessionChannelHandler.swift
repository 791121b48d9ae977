import Foundation
import LiveObjects
import NIOCore
import NIOPosix
import NIOSSH
import PseudoTerminal
import ShopModels
import ShopSessions

/// One SSH `session` channel: collects the pty request, refuses what the shop does not offer, runs
/// the shop on a fresh pty for a shell request, and relays bytes both ways until either side ends.
///
/// Order of events: pty-req (stored) → shell (admission, then the start off the event loop; keys, window changes
/// and endings that come meanwhile wait for it) → started (reply, relay, idle timer) → window-change (resize) … →
/// the process exits or the client goes away → the exit status and a reason, then close.
final class SessionChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = SSHChannelData
    typealias OutboundOut = SSHChannelData

    let context: SessionContext
    var terminal: SSHChannelRequestEvent.PseudoTerminalRequest?
    /// The client's locale variables (`SendEnv LANG LC_*`), read only for the language the shop speaks to it.
    var localeVariables: [String: String] = [:]
    var process: PseudoTerminalProcess?
    var relay: Channel?
    var pendingInput: [ByteBuffer] = []
    var holdsSlot = false
    /// The slot held is a guest's (counted per address, apart from key holders').
    var holdsGuestSlot = false
    var sessionNumber = 0
    private var ending: SessionEnding = .shopExited
    private var termination: ProcessTermination?
    var relayClosed = false
    private var finished = false
    private var lastInput = NIODeadline.now()
    /// When the oldest unanswered key arrived, for the server-side key-to-frame timing.
    let keyTimer = KeyAnswerTimer(front: "ssh")
    private var idleCheck: Scheduled<Void>?
    private var killTimer: Scheduled<Void>?
    private var channel: Channel?
    /// The shop is being started off the event loop; what arrives meanwhile waits for it.
    var isStarting = false
    /// A window change that came while the shop was starting.
    var pendingSize: TerminalSize?
    /// An ending asked for while the shop was starting (the client gone, a drain, the idle limit).
    var pendingEnding: SessionEnding?
    /// A drain's kill that came while the shop was starting.
    var pendingKill = false

    init(context: SessionContext) {
        self.context = context
    }

    func handlerAdded(context: ChannelHandlerContext) {
        channel = context.channel
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard withinAllowance(event, context: context) else { return }
        switch event {
        case let request as SSHChannelRequestEvent.PseudoTerminalRequest:
            let accepted = terminal == nil && process == nil && !isStarting
            if accepted { terminal = request }
            reply(accepted, wanted: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.EnvironmentRequest:
            // The session's environment stays the server's choice (a client's LANG may name a locale this host lacks):
            // the locale variables are kept only to pick the shop's language from, and nothing else is taken.
            let accepted = process == nil && !isStarting && SessionLanguage.accepts(name: request.name, value: request.value)
            if accepted { localeVariables[request.name] = request.value }
            reply(accepted, wanted: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.ShellRequest:
            startShop(wantReply: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.ExecRequest where process != nil || isStarting:
            reply(false, wanted: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.SubsystemRequest where process != nil || isStarting:
            reply(false, wanted: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.ExecRequest:
            refuse("storefront runs no commands: connect with ssh -t and no command", wantReply: request.wantReply, context: context)
            self.context.refusals.log("refused exec", "refused exec \(clientChosen(request.command)) from \(self.context.peer)")
        case let request as SSHChannelRequestEvent.SubsystemRequest:
            refuse("storefront offers no subsystems (asked for \(clientChosen(request.subsystem)))", wantReply: request.wantReply, context: context)
            self.context.refusals.log("refused subsystem", "refused subsystem \(clientChosen(request.subsystem)) from \(self.context.peer)")
        case let request as SSHChannelRequestEvent.WindowChangeRequest:
            let asked = TerminalSize(
                columns: request.terminalCharacterWidth, rows: request.terminalRowHeight, pixelWidth: request.terminalPixelWidth,
                pixelHeight: request.terminalPixelHeight)
            let size = self.context.command.bounded(asked)
            if isStarting { pendingSize = size }
            do { try process?.resize(to: size) } catch { self.context.log("session \(sessionNumber): resize failed: \(error)") }
            if size != asked {
                // Said once the pty holds it; throttled as refusals are, since a client may send window changes without end.
                self.context.refusals.log(
                    "held window", "session \(sessionNumber): window \(asked.columns)x\(asked.rows) held to \(size.columns)x\(size.rows)")
            }
        case is SSHChannelRequestEvent.SignalRequest, is SSHChannelRequestEvent.LocalFlowControlRequest:
            break
        case let event as ChannelEvent where event == .inputClosed:
            // The client will send nothing more; its window may still show output, so the shop keeps running.
            break
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        guard case .channel = message.type, case .byteBuffer(let bytes) = message.data else { return }
        lastInput = .now()
        if let relay {
            keyTimer.keyArrived()
            relay.writeAndFlush(bytes, promise: nil)
        } else if process != nil || isStarting {
            pendingInput.append(bytes)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // A slow client slows the shop's output instead of queueing it without bound.
        relay?.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenFailure { _ in }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if process != nil || isStarting, termination == nil {
            end(.clientGone)
        }
        finishIfDone()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // The connection closing under an open channel is how a vanished client looks; not worth a line.
        if (error as? NIOSSHError)?.type != .tcpShutdown {
            self.context.log("session \(sessionNumber): \(error)")
        }
        context.close(promise: nil)
    }

    /// Hears how the process ended (from its host, or a thread waiting for it) and reports back on the loop.
    func reapInBackground(_ process: PseudoTerminalProcess, loop: EventLoop) {
        let me = NIOLoopBound(self, eventLoop: loop)
        process.whenExited { termination in
            loop.execute { me.value.processExited(termination) }
        }
    }

    private func processExited(_ termination: ProcessTermination) {
        self.termination = termination
        killTimer?.cancel()
        // The relay sees EIO once the last holder of the pty is gone; a grandchild keeping it open
        // must not keep the session alive.
        if let relay, !relayClosed, let loop = channel?.eventLoop {
            loop.scheduleTask(in: .seconds(2)) { relay.close(promise: nil) }
        }
        finishIfDone()
    }

    // MARK: - Ending

    /// Asks the process to end: a hangup when the client is gone, SIGTERM (the shop restores the
    /// screen first) when the client is still there to read why. SIGKILL follows if it lingers: after
    /// 5 s, or for a drain at the drain's own deadline.
    func end(_ reason: SessionEnding) {
        if isStarting {
            pendingEnding = pendingEnding ?? reason
            return
        }
        guard let process, termination == nil, ending == .shopExited else { return }
        ending = reason
        if reason == .clientGone {
            process.signal(SIGHUP)
            relay?.close(promise: nil)
        } else {
            process.signal(SIGTERM)
        }
        // A drain has its own deadline (`--drain-timeout`) and kills what is left then; a timer of
        // this session's own would cut that deadline short.
        guard reason != .shutdown else { return }
        killTimer = channel?.eventLoop.scheduleTask(in: .seconds(5)) { process.signal(SIGKILL) }
    }

    /// Kills the process at once; for the end of a drain.
    func kill() {
        if isStarting { pendingKill = true }
        guard let process, termination == nil else { return }
        process.signal(SIGKILL)
    }

    func finishIfDone() {
        guard !finished, let process, let termination, relayClosed else { return }
        finished = true
        idleCheck?.cancel()
        releaseSlot()
        context.registry.remove(sessionNumber)
        let crashed = ending.isCrash(termination)
        context.log(
            "session \(sessionNumber) closed: \(crashed ? "crashed" : ending.rawValue), pid \(process.pid) \(termination)\(process.placeNote)")
        guard let channel, channel.isActive else { return }
        let message = ending.message(for: termination, idleTimeout: context.admission.limits.idleTimeout)
        // A shop that died of a signal (a crash, SIGKILL) could not put the shopper's terminal back: the server does.
        if case .signalled = termination { writeOutput(TerminalReset.afterCrash, to: channel) }
        // After the shop's last frame, so the reason starts on a fresh line.
        if let message { writeError("\r\n" + message, to: channel) }
        // `shellStatus` is always 0 to 255 (an unknown end is 255): ExitStatus traps on a negative number.
        let status = SSHChannelRequestEvent.ExitStatus(exitStatus: Int(termination.shellStatus))
        channel.triggerUserOutboundEvent(status).whenComplete { _ in channel.close(promise: nil) }
    }

    func releaseSlot() {
        if holdsSlot { holdsGuestSlot ? context.admission.endGuestSession(from: context.peer) : context.admission.endSession() }
        holdsSlot = false
    }

    // MARK: - Idle

    func scheduleIdleCheck(after delay: TimeAmount, loop: EventLoop) {
        let me = NIOLoopBound(self, eventLoop: loop)
        idleCheck = loop.scheduleTask(in: delay) { me.value.checkIdle(loop: loop) }
    }

    private func checkIdle(loop: EventLoop) {
        guard !finished else { return }
        let timeout = TimeAmount(context.admission.limits.idleTimeout)
        let quietFor = NIODeadline.now() - lastInput
        if quietFor >= timeout {
            context.log("session \(sessionNumber): no key for \(ServeDuration.describe(context.admission.limits.idleTimeout)), closing")
            end(.idle)
        } else {
            scheduleIdleCheck(after: timeout - quietFor, loop: loop)
        }
    }
}

extension SessionChannelHandler: LiveObject {}
