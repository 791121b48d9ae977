import CPseudoTerminal
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The join socket: how a process that holds a shopper's terminal (sshd's `ForceCommand`, `storefront sshd-session`)
/// hands it to a server's session workers instead of running the shop itself. A local SEQPACKET socket, in the
/// workers' message layout (`WorkerMessages`): the terminal travels as SCM_RIGHTS with the first message.
///
/// Order of messages: the joiner's `join` (its environment, the terminal) → the server's `started`, `ownProcess` or
/// `refused` → the joiner's `windowChanged` and `hangUp` while it runs → the server's `ended`, then it closes.
public enum SessionJoin {
    /// What the joiner sends.
    public enum Request: Equatable, Sendable {
        case join(environment: [String: String], terminal: Int32)
        case windowChanged
        /// The joiner was told to end (sshd's SIGHUP when the client is gone, SIGTERM): the session ends as it would.
        case hangUp(signal: Int32)
    }

    /// What the server answers.
    public enum Reply: Equatable, Sendable {
        case started
        /// No worker takes this session here (the server runs a process per session, or the terminal needs curses'):
        /// the joiner runs the shop itself.
        case ownProcess
        /// Turned away, with the words for the shopper.
        case refused(String)
        /// The session is over, as a process of its own would have ended, with what to tell the shopper, if anything.
        case ended(ProcessTermination, message: String?)
    }

    static let joinKind: UInt32 = 21
    static let windowChangedKind: UInt32 = 22
    static let hangUpKind: UInt32 = 23
    static let startedKind: UInt32 = 31
    static let ownProcessKind: UInt32 = 32
    static let refusedKind: UInt32 = 33
    static let endedKind: UInt32 = 34
    /// The largest message either side takes: a join names a few variables, not a whole environment.
    public static let capacity = 16 * 1024

    /// Connects to the server's join socket at `path`; throws when nothing listens there.
    public static func connect(path: String) throws -> Int32 {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw PseudoTerminalError("socket") }
        var address = try socketAddress(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(socket)
            throw PseudoTerminalError("connecting to \(path)", code)
        }
        return socket
    }

    /// Listens at `path`, readable and writable by this user only; a socket file left by a server that is gone is
    /// replaced, a live server's is not. Throws with the reason.
    public static func listen(path: String) throws -> Int32 {
        if let live = try? connect(path: path) {
            close(live)
            throw PseudoTerminalError(message: "\(path): another server is listening there")
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw PseudoTerminalError(message: "\(path) exists and is not a socket") }
            unlink(path)
        }
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw PseudoTerminalError("socket") }
        var address = try socketAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, chmod(path, 0o600) == 0, Glibc.listen(socket, 128) == 0 else {
            let error = PseudoTerminalError("listening at \(path)")
            close(socket)
            throw error
        }
        return socket
    }

    private static func socketAddress(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let room = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < room, !bytes.contains(0) else {
            throw PseudoTerminalError(message: "a join socket's path must be 1 to \(room - 1) bytes: \(path.prefix(120))")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return address
    }

    /// The next connection waiting on a listening `socket`, non-blocking; nil when none is.
    public static func accept(on socket: Int32) -> Int32? {
        let connection = sf_accept_nonblocking(socket)
        return connection >= 0 ? connection : nil
    }

    /// The user id of the process at the other end of `socket`, as the kernel vouches for it.
    public static func peerUser(of socket: Int32) -> uid_t? {
        var user: UInt32 = 0
        return sf_peer_user(socket, &user) == 0 ? uid_t(user) : nil
    }

    public static func send(_ request: Request, on socket: Int32) throws {
        switch request {
        case .join(let environment, let terminal):
            try WorkerMessages.send(
                try WorkerMessages.request(kind: joinKind, session: 0, environment: environment), on: socket, descriptor: terminal)
        case .windowChanged:
            try WorkerMessages.send(try WorkerMessages.request(kind: windowChangedKind, session: 0), on: socket)
        case .hangUp(let number):
            try WorkerMessages.send(words([hangUpKind, UInt32(bitPattern: number)]), on: socket)
        }
    }

    public static func send(_ reply: Reply, on socket: Int32) throws {
        let bytes: [UInt8] =
            switch reply {
            case .started: words([startedKind, 0, 0])
            case .ownProcess: words([ownProcessKind, 0, 0])
            case .refused(let why): words([refusedKind, 0, 0]) + Array(why.utf8.prefix(1_000))
            case .ended(let termination, let message):
                words([endedKind] + Self.words(of: termination)) + Array((message ?? "").utf8.prefix(1_000))
            }
        try WorkerMessages.send(bytes, on: socket)
    }

    /// What came in on `socket`: a message, nothing yet (a non-blocking socket), or the other side gone.
    public enum Received<Message> {
        case message(Message)
        case malformed
        case nothing
        case gone
    }

    /// Reads the joiner's next message. A terminal that came with anything but a join is closed here.
    public static func receiveRequest(on socket: Int32) -> Received<Request> {
        receive(on: socket) { header, body, descriptor in
            if header.first == joinKind, descriptor >= 0 {
                guard let environment = joinEnvironment(header, body) else {
                    close(descriptor)
                    return nil
                }
                return .join(environment: environment, terminal: descriptor)
            }
            if descriptor >= 0 { close(descriptor) }
            switch header.first {
            case windowChangedKind: return .windowChanged
            case hangUpKind where header.count >= 2: return .hangUp(signal: Int32(bitPattern: header[1]))
            default: return nil
            }
        }
    }

    private static func joinEnvironment(_ header: [UInt32], _ body: ArraySlice<UInt8>) -> [String: String]? {
        guard header.count == 4, header[2] == 0 else { return nil }
        var environment: [String: String] = [:]
        for entry in WorkerMessages.strings(in: body.dropFirst(16)) {
            guard let equals = entry.firstIndex(of: "=") else { return nil }
            environment[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return environment.count == Int(header[3]) ? environment : nil
    }

    /// Reads the server's next reply.
    public static func receiveReply(on socket: Int32) -> Received<Reply> {
        receive(on: socket) { header, body, descriptor in
            if descriptor >= 0 { close(descriptor) }
            guard header.count >= 3 else { return nil }
            let text = String(decoding: body.dropFirst(12), as: UTF8.self)
            switch header[0] {
            case startedKind: return .started
            case ownProcessKind: return .ownProcess
            case refusedKind: return .refused(text)
            case endedKind:
                let termination: ProcessTermination =
                    switch header[1] {
                    case 1: .exited(Int32(bitPattern: header[2]))
                    case 2: .signalled(Int32(bitPattern: header[2]))
                    default: .unknown
                    }
                return .ended(termination, message: text.isEmpty ? nil : text)
            default: return nil
            }
        }
    }

    private static func receive<Message>(
        on socket: Int32, _ parse: (_ header: [UInt32], _ body: ArraySlice<UInt8>, _ descriptor: Int32) -> Message?
    ) -> Received<Message> {
        var buffer = [UInt8](repeating: 0, count: capacity)
        switch WorkerMessages.receive(on: socket, into: &buffer) {
        case .nothing: return .nothing
        case .gone: return .gone
        case .truncated: return .malformed
        case .message(let body, let descriptor):
            let header = WorkerMessages.words(in: body, count: min(4, body.count / 4)) ?? []
            // The parser keeps a terminal it returns and closes any other it was given.
            return parse(header, body, descriptor).map { .message($0) } ?? .malformed
        }
    }

    private static func words(of termination: ProcessTermination) -> [UInt32] {
        switch termination {
        case .exited(let code): [1, UInt32(bitPattern: code)]
        case .signalled(let number): [2, UInt32(bitPattern: number)]
        case .unknown: [0, 0]
        }
    }

    private static func words(_ values: [UInt32]) -> [UInt8] {
        values.flatMap { value in withUnsafeBytes(of: value) { Array($0) } }
    }
}
