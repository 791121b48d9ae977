import CPseudoTerminal
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The messages between a server and a session worker, in the session host's own layout (session_protocol.h): a
/// request's header of four 32-bit words (kind, session, argument count or signal, environment count) then its
/// NUL-terminated strings, with the session's terminal as SCM_RIGHTS; a reply of five (kind, session, pid, error,
/// status).
enum WorkerMessages {
    static let start: UInt32 = 1
    static let started: UInt32 = 2
    static let ended: UInt32 = 3
    static let windowChanged: UInt32 = 5
    static let signal: UInt32 = 6
    /// Open what the sessions will share now, while no session waits (the server's only worker, its spare).
    static let prepare: UInt32 = 7
    /// The error a worker answers for a terminal only curses can draw: the session gets a process of its own instead.
    static let needsOwnProcess: Int32 = -2
    /// The largest request, as the session host's.
    static let capacity = 256 * 1024

    /// A request's bytes: the header, then `arguments` and `environment` as NUL-terminated strings.
    static func request(kind: UInt32, session: UInt32, arguments: [String] = [], environment: [String: String] = [:], signal: Int32 = 0)
        throws -> [UInt8]
    {
        var strings = [UInt8]()
        for text in arguments + environment.sorted(by: { $0.key < $1.key }).map({ "\($0.key)=\($0.value)" }) {
            guard !text.utf8.contains(0) else { throw PseudoTerminalError(message: "a session argument or environment value holds a NUL byte") }
            strings += Array(text.utf8) + [0]
        }
        let count = kind == Self.signal ? UInt32(bitPattern: signal) : UInt32(arguments.count)
        let bytes = words([kind, session, count, UInt32(environment.count)]) + strings
        guard bytes.count <= capacity else { throw PseudoTerminalError(message: "a session's arguments and environment are too long") }
        return bytes
    }

    static func reply(kind: UInt32, session: UInt32, error: Int32 = 0, status: Int32 = 0) -> [UInt8] {
        words([kind, session, UInt32(bitPattern: getpid()), UInt32(bitPattern: error), UInt32(bitPattern: status)])
    }

    /// The 32-bit words at the start of `bytes`.
    static func words(in bytes: some Collection<UInt8>, count: Int) -> [UInt32]? {
        guard bytes.count >= count * 4 else { return nil }
        let array = Array(bytes.prefix(count * 4))
        return (0..<count).map { index in array.withUnsafeBytes { $0.load(fromByteOffset: index * 4, as: UInt32.self) } }
    }

    /// The NUL-terminated strings after a request's header.
    static func strings(in bytes: ArraySlice<UInt8>) -> [String] {
        bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    private static func words(_ values: [UInt32]) -> [UInt8] {
        values.flatMap { value in withUnsafeBytes(of: value) { Array($0) } }
    }

    /// What one read of a socket gave.
    enum Incoming {
        /// A whole message, and the descriptor that came with it (-1 if none): the caller keeps or closes it.
        case message(ArraySlice<UInt8>, descriptor: Int32)
        /// A message too long for the buffer; a descriptor that came with it is closed here.
        case truncated
        /// Nothing yet (a non-blocking socket).
        case nothing
        /// The other side is gone.
        case gone
    }

    /// Reads one message into `buffer`, with at most one descriptor.
    static func receive(on socket: Int32, into buffer: inout [UInt8]) -> Incoming {
        var descriptor: Int32 = -1
        var truncated: Int32 = 0
        let length = buffer.withUnsafeMutableBytes { sf_receive_with_descriptor(socket, $0.baseAddress, $0.count, &descriptor, &truncated) }
        if length < 0 { return errno == EAGAIN || errno == EINTR ? .nothing : .gone }
        if length == 0 { return .gone }
        if truncated != 0 {
            if descriptor >= 0 { close(descriptor) }
            return .truncated
        }
        return .message(buffer[0..<length], descriptor: descriptor)
    }

    /// Sends one message, with `descriptor` unless it is -1. Throws with the reason.
    static func send(_ bytes: [UInt8], on socket: Int32, descriptor: Int32 = -1) throws {
        while true {
            let sent = bytes.withUnsafeBytes { sf_send_with_descriptor(socket, $0.baseAddress, $0.count, descriptor) }
            if sent == 0 { return }
            // A worker's socket does not block its reads; a full one (the server reads on a thread of its own) is
            // waited out, briefly, rather than a session's start or end lost.
            guard errno == EAGAIN || errno == EINTR else { throw PseudoTerminalError("sending a session worker a message") }
            var ready = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            guard poll(&ready, 1, 1000) >= 0 || errno == EINTR else { throw PseudoTerminalError("waiting to send a session worker a message") }
        }
    }
}
