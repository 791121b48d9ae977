import CPseudoTerminal
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A terminal size in character cells.
public struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    public var description: String { "\(columns)x\(rows)" }
}

/// How a child process ended.
public enum ProcessTermination: Hashable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    public var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signalled(let number): return signalName(number)
        }
    }

    /// The status a shell would report: the exit code, or 128 + the signal number.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): return code
        case .signalled(let number): return 128 + number
        }
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
}

/// A program running as the session leader of a fresh pseudo-terminal.
///
/// Order of calls: `spawn` → hand `takeTerminal()` to whatever relays bytes → `resize` as the
/// client's window changes → `signal` to end it → `waitForExit` (blocking) reaps it.
public final class PseudoTerminalProcess: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init except `terminal`, which only
    // `takeTerminal` reads, once, before the descriptor changes hands.
    public let pid: pid_t
    /// A duplicate of the terminal's controlling side, kept for window-size changes.
    private let control: Int32
    private var terminal: Int32

    /// Starts `executable` with `arguments` on a new pty of `size`, as the leader of a new session
    /// whose controlling terminal is that pty. The terminal cannot suspend it: VSUSP is disabled.
    public static func spawn(executable: String, arguments: [String], environment: [String: String], size: TerminalSize) throws -> PseudoTerminalProcess {
        var nameBuffer = [CChar](repeating: 0, count: 128)
        let master = sf_open_pseudo_terminal(&nameBuffer, nameBuffer.count)
        guard master >= 0 else { throw PseudoTerminalError("opening a pty") }
        var keepMaster = false
        defer { if !keepMaster { close(master) } }
        let replicaPath = String(decoding: nameBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)

        // Opened here (without becoming our controlling terminal) so the modes and size are set
        // before the program starts, and so the pty stays open until the child has its own copy.
        let replica = open(replicaPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard replica >= 0 else { throw PseudoTerminalError("open \(replicaPath)") }
        defer { close(replica) }
        var modes = termios()
        guard tcgetattr(replica, &modes) == 0 else { throw PseudoTerminalError("tcgetattr") }
        modes.c_iflag |= tcflag_t(IUTF8)
        // A remote Ctrl-Z must never stop the shop: nothing on the host would resume it.
        withUnsafeMutableBytes(of: &modes.c_cc) { cc in cc[Int(VSUSP)] = 0 }
        guard tcsetattr(replica, TCSANOW, &modes) == 0 else { throw PseudoTerminalError("tcsetattr") }
        try setSize(size, of: master)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        // POSIX_SPAWN_SETSID (0x80): glibc calls setsid() before the file actions, so opening the
        // pty below, without O_NOCTTY, makes it the new session's controlling terminal.
        let newSession: Int16 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) | newSession)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, replicaPath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw PseudoTerminalError("posix_spawn \(executable)", spawned) }

        let control = fcntl(master, F_DUPFD_CLOEXEC, 0)
        guard control >= 0 else {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            throw PseudoTerminalError("dup")
        }
        keepMaster = true
        return PseudoTerminalProcess(pid: pid, terminal: master, control: control)
    }

    private init(pid: pid_t, terminal: Int32, control: Int32) {
        self.pid = pid
        self.terminal = terminal
        self.control = control
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

    /// Sets the window size; the kernel sends SIGWINCH to the program.
    public func resize(to size: TerminalSize) throws {
        try Self.setSize(size, of: control)
    }

    /// Sends `number` to the program. Returns false when it is already gone.
    @discardableResult
    public func signal(_ number: Int32) -> Bool {
        kill(pid, number) == 0
    }

    /// Blocks until the program ends and reaps it. Call once, off any event loop.
    public func waitForExit() -> ProcessTermination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            if errno != EINTR { return .exited(-1) }
        }
        let signalNumber = status & 0x7F
        return signalNumber == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signalNumber)
    }

    private static func setSize(_ size: TerminalSize, of descriptor: Int32) throws {
        var window = winsize(
            ws_row: UInt16(clamping: size.rows), ws_col: UInt16(clamping: size.columns), ws_xpixel: 0, ws_ypixel: 0
        )
        guard ioctl(descriptor, UInt(TIOCSWINSZ), &window) == 0 else { throw PseudoTerminalError("TIOCSWINSZ") }
    }
}
