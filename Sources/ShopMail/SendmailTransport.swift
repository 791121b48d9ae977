import Foundation
import LiveObjects
import ShopModels
import ShopPorts
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Hands messages to a sendmail-compatible command (`sendmail -t -i` by default; Postfix, exim and msmtp all
/// provide one): the message on its standard input, the recipients read from its headers.
///
/// Order of calls per message: the command started → the message written on a thread of its own (a command that
/// never reads, or closes its input early, holds nothing) while its standard error is read as it comes, keeping only
/// its tail → the command's end awaited until `deadline` → past the deadline, or when the sending task is cancelled
/// (the shop quitting), the command is killed and the try fails, to be tried again later.
public struct SendmailTransport: MailTransport {
    /// The program and its arguments, as `--mail-command` gives them, split on spaces.
    public let command: [String]
    /// How long one message may take; the default is well past what a mail server on the way needs to answer.
    public let deadline: Duration
    private let clock: any Clock<Duration>
    /// How much of the command's standard error is kept for the outbox's `last_error`.
    public static let errorTailBytes = 2_048

    public init(command: [String], deadline: Duration = .seconds(60), clock: any Clock<Duration> = ContinuousClock()) {
        self.command = command
        self.deadline = deadline
        self.clock = clock
    }

    /// `text` split on runs of spaces: `sendmail -t -i` → ["sendmail", "-t", "-i"].
    public static func parse(_ text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }

    public func send(_ message: MailMessage) async throws(MailTransportError) {
        guard let program = command.first else { throw MailTransportError("no mail command is set") }
        let process = Process()
        process.executableURL = Self.resolve(program)
        process.arguments = Array(command.dropFirst())
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let ending = OnceTold()
        process.terminationHandler = { ending.finish($0.terminationReason == .exit ? $0.terminationStatus : 128 + $0.terminationStatus) }
        let tail = ErrorTail(limit: Self.errorTailBytes)
        do {
            try process.run()
        } catch {
            throw MailTransportError("cannot start the mail command \(program): \(error.localizedDescription)")
        }
        try? errors.fileHandleForWriting.close()
        Self.read(errors.fileHandleForReading, into: tail)
        Self.write(Data(message.rfc5322.utf8), to: input.fileHandleForWriting)
        let pid = process.processIdentifier
        let (clock, deadline) = (clock, deadline)
        let status: Int32? = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await ending.status() }
            group.addTask {
                try? await clock.sleep(for: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            // Past the deadline, or cancelled: the command is ended here, so the wait for its end returns too.
            if first == nil { kill(pid, SIGKILL) }
            group.cancelAll()
            return first
        }
        if let status, status != 0 {
            // Its last words may still be on the way: wait for the end of its standard error, but not for a child
            // of its that keeps it open.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await tail.end.status() }
                group.addTask { try? await clock.sleep(for: .seconds(1)) }
                await group.next()
                tail.end.finish(0)
                group.cancelAll()
            }
        }
        guard let status else {
            let why = Task.isCancelled ? "the shop stopped while it ran" : "it did not finish within \(deadline)"
            throw MailTransportError("the mail command \(program) was killed: \(why)")
        }
        guard status == 0 else {
            let reason = tail.text.split(separator: "\n").last.map(String.init) ?? "no message"
            throw MailTransportError("the mail command \(program) exited with \(status): \(MailMessage.oneLine(String(reason.suffix(300))))")
        }
    }

    /// Reads the command's standard error on a thread of its own until it ends, keeping only its tail.
    private static func read(_ handle: FileHandle, into tail: ErrorTail) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let descriptor = handle.fileDescriptor
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    tail.append(Data(buffer[0..<count]))
                    continue
                }
                if count < 0, errno == EINTR { continue }
                break
            }
            try? handle.close()
            tail.end.finish(0)
        }
        thread.stackSize = 64 * 1024
        thread.start()
    }

    /// Writes the message on a thread of its own, with SIGPIPE held back on it: a command that closes its input early
    /// makes the write fail, not the shop die.
    private static func write(_ bytes: Data, to handle: FileHandle) {
        let thread = Thread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            try? handle.write(contentsOf: bytes)
            try? handle.close()
            // A SIGPIPE the write raised waits on this thread: taken here, it never reaches the process.
            var none = timespec()
            while sigtimedwait(&pipeSignal, nil, &none) == SIGPIPE {}
        }
        thread.stackSize = 64 * 1024
        thread.start()
    }

    /// `program` as a path: as given when it holds a slash, else looked up on PATH (and /usr/sbin, where sendmail lives).
    static func resolve(_ program: String) -> URL {
        if program.contains("/") { return URL(fileURLWithPath: program) }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(program)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: "/usr/sbin/\(program)")
    }
}

/// A status told once (the command's exit, or its standard error's end) and awaited, never blocked on.
private final class OnceTold: Sendable, LiveObject {
    private let state = Mutex<(status: Int32?, waiter: CheckedContinuation<Int32?, Never>?)>((nil, nil))

    /// Tells the waiter, once; a later call changes nothing.
    func finish(_ status: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<Int32?, Never>? in
            guard state.status == nil else { return nil }
            state.status = status
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: status)
    }

    func status() async -> Int32? {
        await withCheckedContinuation { continuation in
            let known = state.withLock { state -> Int32?? in
                if let status = state.status { return .some(status) }
                state.waiter = continuation
                return .none
            }
            if case .some(let status) = known { continuation.resume(returning: status) }
        }
    }
}

/// The last `limit` bytes of what the command wrote to standard error: a command that writes megabytes costs no more.
private final class ErrorTail: Sendable, LiveObject {
    /// Told when the command's standard error has ended.
    let end = OnceTold()
    private let limit: Int
    private let bytes = Mutex<[UInt8]>([])

    init(limit: Int) {
        self.limit = limit
    }

    func append(_ data: Data) {
        bytes.withLock { bytes in
            bytes += data.suffix(limit)
            if bytes.count > limit { bytes.removeFirst(bytes.count - limit) }
        }
    }

    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}
