import NIOCore
import NIOPosix
import NIOSSH
import PseudoTerminal
import ShopLanguages
import ShopSessions

/// Starting the shop for a shell request: admission, the start off the event loop, then the reply and the relay.
extension SessionChannelHandler {
    func startShop(wantReply: Bool, context: ChannelHandlerContext) {
        guard process == nil, !isStarting else { return reply(false, wanted: wantReply, context: context) }
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
        let requested = TerminalSize(
            columns: terminal.terminalCharacterWidth, rows: terminal.terminalRowHeight, pixelWidth: terminal.terminalPixelWidth,
            pixelHeight: terminal.terminalPixelHeight)
        let size = self.context.command.bounded(requested)
        var environment = self.context.command.environment
        let term = self.context.terminalTypes.resolve(terminal.term)
        environment["TERM"] = term.term
        SessionLanguage.pass(Language.localeTag(fromEnvironment: localeVariables), into: &environment)
        let (arguments, customer) = self.context.command.launch(
            guest: isGuest, fingerprint: self.context.identity.fingerprint, environment: &environment)
        // In the registry from now, so a drain that begins while the shop starts reaches it.
        sessionNumber = self.context.registry.add(SessionHandle(handler: NIOLoopBound(self, eventLoop: context.eventLoop)))
        isStarting = true
        let opening = Opening(
            customer: customer, requested: requested, size: size, term: term, isGuest: isGuest, wantReply: wantReply,
            context: NIOLoopBound(context, eventLoop: context.eventLoop)
        )
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        let (command, sessionEnvironment) = (self.context.command, environment)
        // Not on the event loop: a fork suspends for the session host's answer, and a stalled host must not hold up
        // every session this loop serves.
        let starting = context.eventLoop.makePromise(of: PseudoTerminalProcess.self)
        starting.completeWithTask { try await command.start(arguments: arguments, environment: sessionEnvironment, size: size) }
        starting.futureResult.whenComplete { result in
            me.value.started(result, opening)
        }
    }

    /// What a shell request asked for, kept while the shop starts.
    struct Opening {
        let customer: String
        let requested: TerminalSize
        let size: TerminalSize
        let term: (term: String, substituted: Bool)
        let isGuest: Bool
        let wantReply: Bool
        let context: NIOLoopBound<ChannelHandlerContext>
    }

    /// The shop started (or could not): replies to the shell request, relays, and applies what came meanwhile.
    func started(_ result: Result<PseudoTerminalProcess, Error>, _ opening: Opening) {
        isStarting = false
        let context = opening.context.value
        let process: PseudoTerminalProcess
        switch result {
        case .success(let started): process = started
        case .failure(let error):
            self.context.log("cannot start a session: \(error)")
            self.context.registry.remove(sessionNumber)
            releaseSlot()
            refuse("storefront: the shop could not start here; try again later", wantReply: opening.wantReply, context: context)
            return
        }
        self.process = process
        let (size, requested) = (opening.size, opening.requested)
        self.context.log(
            "session \(sessionNumber) open: \(opening.customer) from \(self.context.peer), pid \(process.pid), \(opening.term.term) \(size)\(size == requested ? "" : " (asked for \(requested))")\(process.placeNote)"
        )
        if opening.term.substituted, let terminal {
            self.context.log(
                "session \(sessionNumber): TERM \(clientChosen(terminal.term)) is not in this host's terminfo; using \(opening.term.term)")
        }
        reply(true, wanted: opening.wantReply, context: context)
        // Before the shop takes the screen, so it is on the terminal again when the shop gives it back; in the same stream
        // as the shop's output, since a client writes stderr apart and could put it over the shop's first frame.
        if opening.isGuest { writeOutput(self.context.command.guestWelcome + "\r\n", to: context.channel) }
        if let pendingSize {
            do { try process.resize(to: pendingSize) } catch { self.context.log("session \(sessionNumber): resize failed: \(error)") }
        }
        relayOutput(of: process, to: context.channel)
        reapInBackground(process, loop: context.eventLoop)
        scheduleIdleCheck(after: TimeAmount(self.context.admission.limits.idleTimeout), loop: context.eventLoop)
        if let pendingEnding { end(pendingEnding) }
        if pendingKill { kill() }
    }

    /// Connects the pty to the SSH channel, both on this channel's event loop.
    func relayOutput(of process: PseudoTerminalProcess, to sshChannel: Channel) {
        let me = NIOLoopBound(self, eventLoop: sshChannel.eventLoop)
        NIOPipeBootstrap(group: sshChannel.eventLoop)
            .channelOption(ChannelOptions.autoRead, value: true)
            .channelInitializer { relay in
                relay.eventLoop.makeCompletedFuture {
                    try relay.pipeline.syncOperations.addHandler(TerminalOutputHandler(sshChannel: sshChannel, keys: me.value.keyTimer))
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
}
