import Dispatch
import Foundation
import LiveObjects
import PseudoTerminal
import ShopModels
import ShopSessions
import Synchronization

/// `serve --join-socket PATH`: the sessions the system's OpenSSH hands over (`storefront sshd-session --join PATH`)
/// run in this server's workers, counted, logged and drained as its own SSH sessions are.
///
/// Order of calls: `start` → (each joiner: checked, its session started in a worker, its window changes and hang-ups
/// passed on, its end told) → `stop`.
final class OpenSSHJoinListener: @unchecked Sendable {
    // @unchecked: `source` is set once in `start` and cancelled in `stop`; each joiner's state is its own.
    let path: String
    private let context: JoinContext
    private let queue = DispatchQueue(label: "storefront.join")
    private var source: (any DispatchSourceRead)?
    private var socket: Int32 = -1
    /// The joiners connected now, held until each is finished (so a connection's handlers need not hold it).
    private let connections = HeldConnections()

    init(path: String, context: JoinContext) {
        self.path = path
        self.context = context
    }

    /// Listens at `path` (this user's only) and takes joiners from now on. Throws with the reason.
    func start() throws {
        socket = try SessionJoin.listen(path: path)
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        let source = DispatchSource.makeReadSource(fileDescriptor: socket, queue: queue)
        let (socket, context, connections) = (socket, context, connections)
        source.setEventHandler {
            while true {
                guard let connection = SessionJoin.accept(on: socket) else { return }
                // Anyone who may connect could name any customer: only this server's own user (sshd's ForceCommand
                // runs as the shop's user) and root are believed.
                guard let user = SessionJoin.peerUser(of: connection), user == getuid() || user == 0 else {
                    context.refusals.log("refused a joiner", "refused a joiner on \(context.path): not the server's user")
                    close(connection)
                    continue
                }
                let joiner = JoinedConnection(socket: connection, context: context) { connections.remove($0) }
                connections.add(joiner)
                joiner.listen()
            }
        }
        source.setCancelHandler { close(socket) }
        self.source = source
        source.resume()
    }

    /// Takes no more joiners and removes the socket file; sessions already joined run on until drained.
    func stop() {
        source?.cancel()
        source = nil
        unlink(path)
    }
}

/// The joiners' connections, each held from its accept until it is finished.
private final class HeldConnections: Sendable, LiveObject {
    private let held = Mutex<[ObjectIdentifier: JoinedConnection]>([:])

    func add(_ connection: JoinedConnection) {
        held.withLock { $0[ObjectIdentifier(connection)] = connection }
    }

    func remove(_ connection: ObjectIdentifier) {
        _ = held.withLock { $0.removeValue(forKey: connection) }
    }
}

/// What a joined session needs of its server.
struct JoinContext: Sendable {
    var path: String
    var command: SessionCommand
    var terminalTypes: TerminalTypes
    var admission: AdmissionControl
    var registry: SessionRegistry
    var log: @Sendable (String) -> Void
    var refusals: RefusalLogThrottle
    /// How long a joiner has to send its join once connected.
    var joinDeadline: Duration = .seconds(5)
}

/// One joiner's connection: its join checked, its session started, its messages passed on, its session's end told.
private final class JoinedConnection: @unchecked Sendable, LiveObject {
    // @unchecked: every mutable property is touched only on `queue`.
    private let socket: Int32
    private let context: JoinContext
    private let queue = DispatchQueue(label: "storefront.joined")
    private var source: (any DispatchSourceRead)?
    private var deadline: (any DispatchSourceTimer)?
    private var session: JoinedSession?
    private var joined = false
    private var ending = SessionEnding.shopExited
    private var number = 0
    /// Tells the listener the connection is finished, so it lets go of it.
    private let onFinish: @Sendable (ObjectIdentifier) -> Void
    /// Set once the socket is closed (the joiner gone, or the connection finished): nothing more is sent on it.
    private var isClosed = false
    /// A hang-up, drain or kill heard while the session was starting, passed on once it has.
    private var pendingSignal: Int32?
    private var hasEnded = false

    init(socket: Int32, context: JoinContext, onFinish: @escaping @Sendable (ObjectIdentifier) -> Void) {
        self.socket = socket
        self.context = context
        self.onFinish = onFinish
    }

    /// Starts reading the joiner's messages and its join deadline, on the connection's own queue: a message can
    /// arrive the moment the source resumes, and the handler that refuses it must find the source to cancel (it once
    /// found none, on a loaded machine, and the refused joiner's socket was never closed).
    func listen() {
        queue.async { [self] in
            let source = DispatchSource.makeReadSource(fileDescriptor: socket, queue: queue)
            source.setEventHandler { [weak self] in self?.readMessages() }
            // Closed only once the source is done with it: a descriptor closed under a live source could be reused.
            source.setCancelHandler { [socket] in close(socket) }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .milliseconds(Int(context.joinDeadline.components.seconds * 1000)))
            timer.setEventHandler { [weak self] in
                guard let self, !joined else { return }
                context.refusals.log("refused a joiner", "closed a joiner on \(context.path) that sent no join within \(context.joinDeadline)")
                finish()
            }
            self.source = source
            deadline = timer
            source.resume()
            timer.resume()
        }
    }

    private func readMessages() {
        while true {
            let received = SessionJoin.receiveRequest(on: socket)
            switch received {
            case .nothing: return
            case .message(.join(let environment, let terminal)) where !joined:
                joined = true
                deadline?.cancel()
                start(environment: environment, terminal: terminal)
            case .message(.windowChanged):
                session?.windowChanged()
            case .message(.hangUp(let number)) where [SIGHUP, SIGTERM].contains(number):
                hangUp(number)
            case .gone:
                // The joiner is gone (sshd ended it with its connection): so is the shopper.
                closeSocket()
                if joined { hangUp(SIGHUP) } else { finish() }
                return
            case .malformed, .message:
                if case .message(.join(_, let terminal)) = received { close(terminal) }
                context.refusals.log("refused a joiner", "closed a joiner on \(context.path): a message out of order or malformed")
                closeSocket()
                if joined { hangUp(SIGHUP) } else { finish() }
                return
            }
        }
    }

    private func hangUp(_ number: Int32) {
        ending = .clientGone
        signal(number)
        // As the SSH front does for a client gone: a session that has not ended 5 s later is killed.
        queue.asyncAfter(deadline: .now() + .seconds(5)) { [self] in
            if !hasEnded { signal(SIGKILL) }
        }
    }

    /// Passes `number` on to the session, or once it has started.
    private func signal(_ number: Int32) {
        if let session { session.signal(number) } else { pendingSignal = number }
    }

    /// Checks the join as the SSH front checks a connection, then starts the session in a worker off this queue.
    private func start(environment: [String: String], terminal: Int32) {
        let command = context.command
        guard let host = command.host, host.sessionsPerWorker > 1 else {
            close(terminal)
            answer(.ownProcess)
            return finish()
        }
        switch OpenSSHJoinRequest.check(environment) {
        case .failure(let problem):
            close(terminal)
            context.refusals.log("refused a joiner", "refused a joiner on \(context.path): \(problem)")
            answer(.refused("storefront: \(problem)"))
            return finish()
        case .success(let request):
            if let refusal = context.admission.beginSession() {
                close(terminal)
                context.refusals.log("refused a session", "refused a joined session from \(request.address): \(refusal)")
                answer(.refused("storefront: \(refusal)"))
                return finish()
            }
            var sessionEnvironment = command.environment
            sessionEnvironment["TERM"] = context.terminalTypes.resolve(request.term).term
            SessionLanguage.pass(request.locale, into: &sessionEnvironment)
            let (arguments, customer) = command.launch(guest: request.isGuest, fingerprint: request.fingerprint, environment: &sessionEnvironment)
            number = context.registry.add(
                SessionHandle(
                    end: { [self] reason in queue.async { self.endAsked(reason) } },
                    kill: { [self] in queue.async { self.signal(SIGKILL) } }))
            let environmentToRun = sessionEnvironment
            Task { [self] in
                let outcome: Result<JoinedSession?, any Error>
                do {
                    outcome = .success(try await host.join(arguments: arguments, environment: environmentToRun, terminal: terminal))
                } catch {
                    outcome = .failure(error)
                }
                close(terminal)
                queue.async { self.started(outcome, customer: customer, address: request.address) }
            }
        }
    }

    private func started(_ outcome: Result<JoinedSession?, any Error>, customer: String, address: String) {
        switch outcome {
        case .success(let joined?):
            session = joined
            answer(.started)
            context.log("session \(number) opened: \(customer) from \(address), joined through \(context.path), pid \(joined.pid), in a worker")
            if let pendingSignal { joined.signal(pendingSignal) }
            joined.whenEnded { [self] termination in queue.async { self.ended(termination) } }
        case .success(nil):
            release()
            answer(.ownProcess)
            finish()
        case .failure(let error):
            release()
            context.log("session \(number) could not start for \(customer) from \(address): \(error)")
            answer(.refused("storefront: the shop could not start your session; try again in a moment"))
            finish()
        }
    }

    private func endAsked(_ reason: SessionEnding) {
        ending = reason
        signal(reason == .shutdown ? SIGTERM : SIGHUP)
    }

    private func ended(_ termination: ProcessTermination) {
        hasEnded = true
        let crashed = ending.isCrash(termination)
        context.log("session \(number) closed: \(crashed ? "crashed" : ending.rawValue), pid \(session?.pid ?? 0) \(termination), in a worker")
        answer(.ended(termination, message: ending.message(for: termination, idleTimeout: context.admission.limits.idleTimeout)))
        release()
        finish()
    }

    private func release() {
        context.admission.endSession()
        context.registry.remove(number)
    }

    private func answer(_ reply: SessionJoin.Reply) {
        guard !isClosed else { return }
        try? SessionJoin.send(reply, on: socket)
    }

    /// Stops reading and closes the socket (once its source lets go of it); the joiner hears its end.
    private func closeSocket() {
        guard !isClosed else { return }
        isClosed = true
        shutdown(socket, Int32(SHUT_RDWR))
        source?.cancel()
        source = nil
    }

    /// Lets go of the connection: its socket closed, its deadline cancelled, the listener told.
    private func finish() {
        closeSocket()
        deadline?.cancel()
        deadline = nil
        onFinish(ObjectIdentifier(self))
    }
}

extension OpenSSHJoinListener: LiveObject {}
