import Foundation
import NIOCore
import NIOPosix
import NIOSSH
import PseudoTerminal
import ShopModels

/// One SSH `session` channel: collects the pty request, refuses what the shop does not offer, runs
/// the shop on a fresh pty for a shell request, and relays bytes both ways until either side ends.
///
/// Order of events: pty-req (stored) → shell (admission, spawn, relay, idle timer) → window-change
/// (resize) … → the process exits or the client goes away → the exit status and a reason, then close.
final class SessionChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = SSHChannelData
    typealias OutboundOut = SSHChannelData

    let context: SessionContext
    private var terminal: SSHChannelRequestEvent.PseudoTerminalRequest?
    private var process: PseudoTerminalProcess?
    private var relay: Channel?
    private var pendingInput: [ByteBuffer] = []
    private var holdsSlot = false
    /// The slot held is a guest's (counted per address, apart from key holders').
    private var holdsGuestSlot = false
    private var sessionNumber = 0
    private var ending: SessionEnding = .shopExited
    private var termination: ProcessTermination?
    private var relayClosed = false
    private var finished = false
    private var lastInput = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?
    private var killTimer: Scheduled<Void>?
    private var channel: Channel?

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
            let accepted = terminal == nil && process == nil
            if accepted { terminal = request }
            reply(accepted, wanted: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.EnvironmentRequest:
            // The session's environment is the server's choice: a client's LANG may name a locale this host lacks.
            reply(false, wanted: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.ShellRequest:
            startShop(wantReply: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.ExecRequest where process != nil:
            reply(false, wanted: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.SubsystemRequest where process != nil:
            reply(false, wanted: request.wantReply, context: context)
        case let request as SSHChannelRequestEvent.ExecRequest:
            refuse("storefront runs no commands: connect with ssh -t and no command", wantReply: request.wantReply, context: context)
            self.context.refusals.log("refused exec", "refused exec \(clientChosen(request.command)) from \(self.context.peer)")
        case let request as SSHChannelRequestEvent.SubsystemRequest:
            refuse("storefront offers no subsystems (asked for \(clientChosen(request.subsystem)))", wantReply: request.wantReply, context: context)
            self.context.refusals.log("refused subsystem", "refused subsystem \(clientChosen(request.subsystem)) from \(self.context.peer)")
        case let request as SSHChannelRequestEvent.WindowChangeRequest:
            let size = self.context.command.bounded(TerminalSize(columns: request.terminalCharacterWidth, rows: request.terminalRowHeight))
            do { try process?.resize(to: size) } catch { self.context.log("session \(sessionNumber): resize failed: \(error)") }
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
            relay.writeAndFlush(bytes, promise: nil)
        } else if process != nil {
            pendingInput.append(bytes)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // A slow client slows the shop's output instead of queueing it without bound.
        relay?.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenFailure { _ in }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if process != nil, termination == nil {
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

    // MARK: - Starting

    private func startShop(wantReply: Bool, context: ChannelHandlerContext) {
        guard process == nil else { return reply(false, wanted: wantReply, context: context) }
        guard let terminal else {
            refuse("storefront needs an interactive terminal: use ssh -t", wantReply: wantReply, context: context)
            self.context.refusals.log("refused a session", "refused a session without a pty from \(self.context.peer)")
            return
        }
        let isGuest = self.context.identity.isGuest
        if let refusal = isGuest ? self.context.admission.beginGuestSession(from: self.context.peer) : self.context.admission.beginSession() {
            refuse("storefront: \(refusal)", wantReply: wantReply, context: context)
            self.context.refusals.log("refused a session", "refused a session from \(self.context.peer): \(refusal)")
            return
        }
        holdsSlot = true
        holdsGuestSlot = isGuest
        if !self.context.identity.hasStartedSession {
            context.channel.parent?.pipeline.removeHandler(name: QuickAckHandler.name, promise: nil)
        }
        self.context.identity.sessionStarted()
        // A client without a terminal of its own (ssh -tt from a pipe) sends 0x0: give it the classic 80x24.
        let requested = TerminalSize(columns: terminal.terminalCharacterWidth, rows: terminal.terminalRowHeight)
        let size = self.context.command.bounded(requested)
        var environment = self.context.command.environment
        let term = self.context.terminalTypes.resolve(terminal.term)
        environment["TERM"] = term.term
        let (arguments, customer) = self.context.command.launch(guest: isGuest, fingerprint: self.context.identity.fingerprint, environment: &environment)
        let process: PseudoTerminalProcess
        do {
            process = try self.context.command.start(arguments: arguments, environment: environment, size: size)
        } catch {
            self.context.log("cannot start a session: \(error)")
            releaseSlot()
            refuse("storefront: the shop could not start here; try again later", wantReply: wantReply, context: context)
            return
        }
        self.process = process
        sessionNumber = self.context.registry.add(SessionHandle(handler: NIOLoopBound(self, eventLoop: context.eventLoop), pid: process.pid))
        self.context.log("session \(sessionNumber) open: \(customer) from \(self.context.peer), pid \(process.pid), \(environment["TERM"] ?? "") \(size)\(size == requested ? "" : " (asked for \(requested))")")
        if term.substituted {
            self.context.log("session \(sessionNumber): TERM \(clientChosen(terminal.term)) is not in this host's terminfo; using \(term.term)")
        }
        reply(true, wanted: wantReply, context: context)
        // On stderr, before the shop takes the screen: it is on the terminal again when the shop gives it back.
        if isGuest { writeError(self.context.command.guestWelcome, to: context.channel) }
        relayOutput(of: process, to: context.channel)
        reapInBackground(process, loop: context.eventLoop)
        scheduleIdleCheck(after: TimeAmount(self.context.admission.limits.idleTimeout), loop: context.eventLoop)
    }

    /// Connects the pty to the SSH channel, both on this channel's event loop.
    private func relayOutput(of process: PseudoTerminalProcess, to sshChannel: Channel) {
        let me = NIOLoopBound(self, eventLoop: sshChannel.eventLoop)
        NIOPipeBootstrap(group: sshChannel.eventLoop)
            .channelOption(ChannelOptions.autoRead, value: true)
            .channelInitializer { relay in
                relay.eventLoop.makeCompletedFuture {
                    try relay.pipeline.syncOperations.addHandler(TerminalOutputHandler(sshChannel: sshChannel))
                }
            }
            .takingOwnershipOfDescriptor(inputOutput: process.takeTerminal())
            .hop(to: sshChannel.eventLoop)
            .whenComplete { result in
                let handler = me.value
                switch result {
                case .success(let relay):
                    handler.relay = relay
                    for bytes in handler.pendingInput { relay.write(bytes, promise: nil) }
                    handler.pendingInput = []
                    relay.flush()
                    relay.closeFuture.hop(to: sshChannel.eventLoop).whenComplete { _ in
                        me.value.relayClosed = true
                        me.value.finishIfDone()
                    }
                case .failure(let error):
                    handler.context.log("session \(handler.sessionNumber): cannot relay the terminal: \(error)")
                    handler.relayClosed = true
                    process.signal(SIGKILL)
                }
            }
    }

    /// Hears how the process ended (from its host, or a thread waiting for it) and reports back on the loop.
    private func reapInBackground(_ process: PseudoTerminalProcess, loop: EventLoop) {
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
        guard let process, termination == nil else { return }
        process.signal(SIGKILL)
    }

    private func finishIfDone() {
        guard !finished, let process, let termination, relayClosed else { return }
        finished = true
        idleCheck?.cancel()
        releaseSlot()
        context.registry.remove(sessionNumber)
        let crashed = ending == .shopExited && Self.isCrash(termination)
        context.log("session \(sessionNumber) closed: \(crashed ? "crashed" : ending.rawValue), pid \(process.pid) \(termination)")
        guard let channel, channel.isActive else { return }
        let limits = context.admission.limits
        let message: String? = switch ending {
        case .idle: "storefront: closed after \(ServeDuration.describe(limits.idleTimeout)) without a key; your cart is saved."
        case .shutdown: "storefront: the shop is closing for maintenance; your cart is saved. Try again in a few minutes."
        case .clientGone: nil
        case .shopExited: crashed ? "storefront: this session stopped unexpectedly (\(termination)); your cart is saved. Reconnect to go on." : nil
        }
        // A shop that died of a signal (a crash, SIGKILL) could not put the shopper's terminal back: the server does.
        if case .signalled = termination { writeOutput(TerminalReset.afterCrash, to: channel) }
        // After the shop's last frame, so the reason starts on a fresh line.
        if let message { writeError("\r\n" + message, to: channel) }
        let status = SSHChannelRequestEvent.ExitStatus(exitStatus: Int(termination.shellStatus))
        channel.triggerUserOutboundEvent(status).whenComplete { _ in channel.close(promise: nil) }
    }

    /// A signal other than the ones used to end a session on purpose.
    private static func isCrash(_ termination: ProcessTermination) -> Bool {
        guard case .signalled(let number) = termination else { return false }
        return ![SIGHUP, SIGTERM, SIGINT].contains(number)
    }

    private func releaseSlot() {
        if holdsSlot { holdsGuestSlot ? context.admission.endGuestSession(from: context.peer) : context.admission.endSession() }
        holdsSlot = false
    }

    // MARK: - Idle

    private func scheduleIdleCheck(after delay: TimeAmount, loop: EventLoop) {
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
