import CPseudoTerminal
import Dispatch
import Foundation
import LiveObjects

#if canImport(Glibc)
    import Glibc
#endif

/// A session worker's side of its socket to the server: the server's requests in, on the main queue; each session's
/// start and end out.
///
/// Order of calls: `listen` once → `handle` gets each request; `started` answers each `.start`, `ended` follows once
/// that session is over → `serverGone` once the server closed its side (its sessions are then hung up).
@MainActor
public final class SessionWorkerLink {
    /// Set (to "3", the socket's descriptor) in a worker's environment by its server; a worker's arguments are
    /// `[command]`.
    public nonisolated static let variable = "STOREFRONT_SESSION_WORKER"
    public nonisolated static let command = "session-worker"

    /// What the server asks of a worker.
    public enum Request: Sendable {
        /// Run a session of `arguments` with `environment` on `terminal` (a pty's terminal side, now the worker's).
        case start(session: UInt32, terminal: Int32, arguments: [String], environment: [String: String])
        /// The session's window changed size.
        case windowChanged(session: UInt32)
        /// End the session as the signal would end a process of its own (SIGHUP, SIGTERM, SIGINT, SIGKILL).
        case signal(session: UInt32, number: Int32)
        /// Open what the sessions will share (the storage) before the first asks: the server has no other worker.
        case prepare
    }

    private let socket: Int32
    private var source: (any DispatchSourceRead)?
    private var buffer = [UInt8](repeating: 0, count: WorkerMessages.capacity)

    public init(socket: Int32) {
        self.socket = socket
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
    }

    /// Starts reading the server's requests on the main queue.
    public func listen(_ handle: @escaping @MainActor (Request) -> Void, serverGone: @escaping @MainActor () -> Void) {
        let source = DispatchSource.makeReadSource(fileDescriptor: socket, queue: .main)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                while true {
                    switch self.receive() {
                    case .request(let request): handle(request)
                    case .nothing: return
                    case .gone:
                        self.source?.cancel()
                        self.source = nil
                        serverGone()
                        return
                    }
                }
            }
        }
        source.resume()
        self.source = source
    }

    private enum Received {
        case request(Request)
        case nothing
        case gone
    }

    private func receive() -> Received {
        let bytes: ArraySlice<UInt8>
        let descriptor: Int32
        switch WorkerMessages.receive(on: socket, into: &buffer) {
        case .nothing, .truncated: return .nothing
        case .gone: return .gone
        case .message(let body, let passed): (bytes, descriptor) = (body, passed)
        }
        guard let header = WorkerMessages.words(in: bytes, count: 4) else {
            if descriptor >= 0 { close(descriptor) }
            return .nothing
        }
        switch header[0] {
        case WorkerMessages.start where descriptor >= 0:
            let strings = WorkerMessages.strings(in: bytes.dropFirst(16))
            let argumentCount = min(Int(header[2]), strings.count)
            var environment: [String: String] = [:]
            for entry in strings.dropFirst(argumentCount) {
                guard let equals = entry.firstIndex(of: "=") else { continue }
                environment[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
            }
            return .request(
                .start(session: header[1], terminal: descriptor, arguments: Array(strings.prefix(argumentCount)), environment: environment))
        case WorkerMessages.windowChanged:
            return .request(.windowChanged(session: header[1]))
        case WorkerMessages.signal:
            return .request(.signal(session: header[1], number: Int32(bitPattern: header[2])))
        case WorkerMessages.prepare:
            return .request(.prepare)
        default:
            if descriptor >= 0 { close(descriptor) }
            return .nothing
        }
    }

    /// Answers a `.start`: 0, or why the session could not start (`needsOwnProcess` for a terminal only curses draws).
    public func started(_ session: UInt32, error: Int32 = 0) {
        try? WorkerMessages.send(WorkerMessages.reply(kind: WorkerMessages.started, session: session, error: error), on: socket)
    }

    /// Says a session is over, with the status a process of its own would have ended with.
    public func ended(_ session: UInt32, exitCode: Int32) {
        try? WorkerMessages.send(WorkerMessages.reply(kind: WorkerMessages.ended, session: session, status: (exitCode & 0xFF) << 8), on: socket)
    }

    /// The error for a terminal only curses can draw.
    public nonisolated static let needsOwnProcess = WorkerMessages.needsOwnProcess
}

extension SessionWorkerLink: LiveObject {}
