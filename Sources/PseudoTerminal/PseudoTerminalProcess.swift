import CPseudoTerminal
import Foundation
import LiveObjects

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A terminal size in character cells, and in pixels where the terminal tells them (0 where not): what a picture
/// drawn in pixels is scaled by.
public struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int
    public var pixelWidth: Int
    public var pixelHeight: Int

    public init(columns: Int, rows: Int, pixelWidth: Int = 0, pixelHeight: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }

    public var description: String { "\(columns)x\(rows)" }
}

/// How a child process ended.
public enum ProcessTermination: Hashable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)
    /// It ended, but nobody could say how: its session host died before it, or it could not be waited for.
    case unknown

    public var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signalled(let number): return signalName(number)
        case .unknown: return "ended, status unknown"
        }
    }

    /// The status a shell would report: the exit code, 128 + the signal number, or 255 when unknown; always 0 to 255.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): return (0...255).contains(code) ? code : 255
        case .signalled(let number): return (1...127).contains(number) ? 128 + number : 255
        case .unknown: return 255
        }
    }

    /// Whether a signal ended it other than `onPurpose`, the ones its host sends to end a session.
    public func isCrash(besides onPurpose: [Int32]) -> Bool {
        guard case .signalled(let number) = self else { return false }
        return !onPurpose.contains(number)
    }
}

/// The conventional name of a signal, as `SIGSEGV`.
public func signalName(_ number: Int32) -> String {
    let names: [Int32: String] = [
        SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
        SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
        SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM",
    ]
    return names[number] ?? "signal \(number)"
}

/// Why a session process could not be started.
public struct PseudoTerminalError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init(_ call: String, _ code: Int32 = errno) {
        description = "\(call): \(String(cString: strerror(code)))"
    }

    init(message: String) {
        description = message
    }
}

extension ProcessTermination {
    /// How a process ended, from the status `waitpid` gives.
    init(waitStatus status: Int32) {
        let signalNumber = status & 0x7F
        self = signalNumber == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signalNumber)
    }
}

/// A program running as the session leader of a fresh pseudo-terminal.
///
/// Order of calls: `spawn` → hand `takeTerminal()` to whatever relays bytes → `resize` as the
/// client's window changes → `signal` to end it → `whenExited` or `exited()` hears how it ended (`waitForExit`
/// blocks, for a command's own child).
public final class PseudoTerminalProcess: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init except `terminal`, which only
    // `takeTerminal` reads, once, before the descriptor changes hands.
    public let pid: pid_t
    /// A duplicate of the terminal's controlling side, kept for window-size changes.
    private let control: Int32
    private var terminal: Int32
    /// Set for a fork of a session host, which reaps it, or a session in a worker; nil for a program this process
    /// started and reaps.
    private let hosted: HostedSession?

    /// Starts `executable` with `arguments` on a new pty of `size`, as the leader of a new session
    /// whose controlling terminal is that pty. The terminal cannot suspend it: VSUSP is disabled.
    public static func spawn(executable: String, arguments: [String], environment: [String: String], size: TerminalSize) throws
        -> PseudoTerminalProcess
    {
        let pty = try NewPseudoTerminal(size: size)
        // The child opens the pty by name after its setsid, without O_NOCTTY: it becomes the controlling terminal.
        let pid = try ProgramStart.spawn(executable, arguments: arguments, environment: environment, terminal: pty.replicaPath)
        return pty.handOver(pid: pid, hosted: nil)
    }

    /// Starts a session as a fork of `host` (running the program the host runs) on a new pty of `size`, as
    /// `spawn(executable:…)` does; suspends, without blocking a thread, until the host has forked it.
    public static func spawn(arguments: [String], environment: [String: String], size: TerminalSize, host: SessionHostClient) async throws
        -> PseudoTerminalProcess
    {
        let pty = try NewPseudoTerminal(size: size)
        let session = try await host.start(arguments: arguments, environment: environment, terminal: pty.replica)
        return pty.handOver(pid: session.pid, hosted: session)
    }

    fileprivate init(pid: pid_t, terminal: Int32, control: Int32, hosted: HostedSession?) {
        self.pid = pid
        self.terminal = terminal
        self.control = control
        self.hosted = hosted
    }

    deinit {
        close(control)
        if terminal >= 0 { close(terminal) }
    }

    /// Hands over the pty's controlling side for reading and writing; the caller closes it.
    public func takeTerminal() -> Int32 {
        precondition(terminal >= 0, "the terminal was already taken")
        defer { terminal = -1 }
        return terminal
    }

    /// Sets the window size; the kernel sends SIGWINCH to the program, or its worker is told.
    public func resize(to size: TerminalSize) throws {
        try Self.setSize(size, of: control)
        hosted?.worker?.windowChanged()
    }

    /// True for a session in a worker process, which it shares with others.
    public var isInWorker: Bool { hosted?.worker != nil }

    /// What a log line about the session ends with: ", in a worker" for a session in one (whose pid is the worker's).
    public var placeNote: String { isInWorker ? ", in a worker" : "" }

    /// Sends `number` to the program. Returns false when it is already gone.
    @discardableResult
    public func signal(_ number: Int32) -> Bool {
        if let worker = hosted?.worker { return worker.signal(number) }
        if let hosted { return sf_pidfd_signal(hosted.exit.pidfd, number) == 0 }
        return kill(pid, number) == 0
    }

    /// Blocks until a program this process started ends, and reaps it: for a command's own child (a recording),
    /// off any event loop. A session's server hears its end with `whenExited` or `exited()` instead.
    public func waitForExit() -> ProcessTermination {
        precondition(hosted == nil, "a fork of the session host is reaped by the host: use whenExited or exited()")
        return ProgramStart.wait(for: pid)
    }

    /// How the program ended, once it has.
    public func exited() async -> ProcessTermination {
        await withCheckedContinuation { continuation in
            whenExited { continuation.resume(returning: $0) }
        }
    }

    /// Calls `body` once the program has ended, on a thread of its own or the host's reader; call once.
    public func whenExited(_ body: @escaping @Sendable (ProcessTermination) -> Void) {
        if let hosted { return hosted.exit.whenFinished(body) }
        let thread = Thread { [self] in body(ProgramStart.wait(for: pid)) }
        thread.stackSize = 64 * 1024
        thread.start()
    }

    fileprivate static func setSize(_ size: TerminalSize, of descriptor: Int32) throws {
        var window = winsize(
            ws_row: UInt16(clamping: size.rows), ws_col: UInt16(clamping: size.columns), ws_xpixel: UInt16(clamping: size.pixelWidth),
            ws_ypixel: UInt16(clamping: size.pixelHeight)
        )
        guard ioctl(descriptor, UInt(TIOCSWINSZ), &window) == 0 else { throw PseudoTerminalError("TIOCSWINSZ") }
    }
}

/// A pty opened for a program about to start on it, its modes and size set; closes what it holds unless handed over.
private final class NewPseudoTerminal: LiveObject {
    let replicaPath: String
    /// The terminal side, opened here (without becoming our controlling terminal) so the modes and size are set before
    /// the program starts, and so the pty stays open until the child has its own copy.
    let replica: Int32
    private var master: Int32
    private var control: Int32

    init(size: TerminalSize) throws {
        var nameBuffer = [CChar](repeating: 0, count: 128)
        master = sf_open_pseudo_terminal(&nameBuffer, nameBuffer.count)
        guard master >= 0 else { throw PseudoTerminalError("opening a pty") }
        replicaPath = String(decoding: nameBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        replica = open(replicaPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        control = -1
        guard replica >= 0 else {
            close(master)
            throw PseudoTerminalError("open \(replicaPath)")
        }
        var modes = termios()
        guard tcgetattr(replica, &modes) == 0 else { throw PseudoTerminalError("tcgetattr") }
        modes.c_iflag |= tcflag_t(IUTF8)
        // A remote Ctrl-Z must never stop the shop: nothing on the host would resume it.
        withUnsafeMutableBytes(of: &modes.c_cc) { cc in cc[Int(VSUSP)] = 0 }
        guard tcsetattr(replica, TCSANOW, &modes) == 0 else { throw PseudoTerminalError("tcsetattr") }
        try PseudoTerminalProcess.setSize(size, of: master)
        control = fcntl(master, F_DUPFD_CLOEXEC, 0)
        guard control >= 0 else { throw PseudoTerminalError("dup") }
    }

    deinit {
        close(replica)
        if master >= 0 { close(master) }
        if control >= 0 { close(control) }
    }

    /// The started program's process, which from now owns the controlling side and its duplicate.
    func handOver(pid: pid_t, hosted: HostedSession?) -> PseudoTerminalProcess {
        defer { (master, control) = (-1, -1) }
        return PseudoTerminalProcess(pid: pid, terminal: master, control: control, hosted: hosted)
    }
}

extension PseudoTerminalProcess: LiveObject {}
