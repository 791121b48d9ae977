import Foundation
import LiveObjects
import StorefrontTesting
import Testing

/// The built `storefront` binary, next to the test bundle in the build folder.
enum BuiltProduct {
    static var storefront: String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return directory.appendingPathComponent("storefront").path
    }

    /// Fails the test with a clear message when the binary is missing.
    static func requireStorefront(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let path = storefront
        try #require(
            FileManager.default.isExecutableFile(atPath: path), "build the binary first: swift build (looked at \(path))",
            sourceLocation: sourceLocation)
        return path
    }
}

/// Runs a program to completion with piped stdin, stdout and stderr.
struct Subprocess {
    var status: Int32
    var stdout: String
    var stderr: String

    /// `timeout` is a watchdog, not a wait: a program that hangs (reading a FIFO, say) is killed with
    /// SIGKILL then, and the test sees status 137 instead of hanging the suite.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String = "", timeout: Duration = .seconds(120)
    ) throws -> Subprocess {
        try start(executable, arguments, environment: environment, input: input, timeout: timeout).wait()
    }

    /// Starts the program and returns at once, so several can run side by side; `wait()` collects each.
    static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String = "", timeout: Duration = .seconds(120)
    ) throws -> Running {
        // posix_spawn and waitpid: Foundation's Process did not reap tmux's client here.
        // Output goes to files, not pipes: a daemon the program starts (tmux's server) would
        // inherit a pipe's write end and reading to the end would never finish.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let inPath = scratch.appendingPathComponent("in").path
        let outPath = scratch.appendingPathComponent("out").path
        let errPath = scratch.appendingPathComponent("err").path
        try input.write(toFile: inPath, atomically: false, encoding: .utf8)

        var settings = environment ?? ProcessInfo.processInfo.environment
        // The shop writes its credential file under XDG_CONFIG_HOME: never the developer's own.
        if environment?["XDG_CONFIG_HOME"] == nil || settings["XDG_CONFIG_HOME"] == ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] {
            settings["XDG_CONFIG_HOME"] = TemporaryDirectory.make().path
        }
        let pid = try spawnProcess(executable, arguments, environment: settings) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(timeout.components.seconds * 1000)), execute: watchdog)
        return Running(pid: pid, scratch: scratch, watchdog: watchdog)
    }

    /// A program `start` began; `wait()` reaps it and reads what it wrote.
    struct Running {
        let pid: pid_t
        let scratch: URL
        let watchdog: DispatchWorkItem

        /// True once the program has ended; it is still reaped by `wait()`.
        var hasEnded: Bool {
            var info = siginfo_t()
            return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
        }

        func wait() -> Subprocess {
            defer { try? FileManager.default.removeItem(at: scratch) }
            let status = reap(pid)
            watchdog.cancel()
            return Subprocess(
                status: shellStatus(status),
                stdout: (try? String(contentsOfFile: scratch.appendingPathComponent("out").path, encoding: .utf8)) ?? "",
                stderr: (try? String(contentsOfFile: scratch.appendingPathComponent("err").path, encoding: .utf8)) ?? ""
            )
        }
    }
}

/// Starts `executable` with `arguments`; `redirect` adds the file actions that set its descriptors.
///
/// The child gets an empty signal mask and default dispositions. Tests run on threads that block
/// signals, and a spawned child inherits that mask: a tmux server started from one could then
/// never be hung up or terminated, nor could its panes.
func spawnProcess(
    _ executable: String, _ arguments: [String], environment: [String: String],
    redirect: (inout posix_spawn_file_actions_t) -> Void
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    redirect(&actions)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + env { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, env)
    guard spawned == 0 else { throw TmuxError(message: "cannot run \(executable): \(String(cString: strerror(spawned)))") }
    return pid
}

/// A pipe whose ends no spawned program inherits (only what a spawn dups onto 0, 1 or 2): tests run side by side, and
/// an end a concurrently spawned program (a tmux server, a daemon) keeps open would hold the pipe, or a socket, open
/// long after the test closed it. Swift's Glibc has no `pipe2`, so the flag is set right after; sockets are opened
/// with `SOCK_CLOEXEC` at once.
func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
    guard pipe(&ends) == 0 else { return false }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return true
}

/// A wait status as a shell reports it: the exit code, or 128 + the signal that killed it.
func shellStatus(_ status: Int32) -> Int32 {
    (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// A private tmux server for one test: a real terminal the test types into and reads.
///
/// Waiting is event-driven: tmux copies whatever the pane's program writes to a FIFO (`pipe-pane`), and a wait reads
/// the screen again only when something arrived there, until its deadline. Never a fixed sleep, never a pace.
final class TmuxTerminal {
    let socket = "storefront-test-\(UUID().uuidString.prefix(8))"
    let directory: URL
    /// The read end of the FIFO tmux copies the pane's output to (non-blocking).
    private var paneOutput: Int32 = -1

    init(columns: Int = 100, rows: Int = 30, environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(socket)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var settings = [
            "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PS1": "$ ", "HOME": directory.path,
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
        ]
        settings.merge(environment) { $1 }
        let exports = settings.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        // A long history, so a test can read back output taller than the pane.
        let configuration = directory.appendingPathComponent("tmux.conf")
        try "set -g history-limit 50000\n".write(to: configuration, atomically: true, encoding: .utf8)
        try tmux([
            "-f", configuration.path, "new-session", "-d", "-s", "main", "-x", "\(columns)", "-y", "\(rows)", "env \(exports) TERM=xterm-256color sh",
        ])
        try tmux(["set-option", "-t", "main", "window-size", "manual"])
        // Opened for reading first (non-blocking, so no writer is needed yet): tmux's `cat` then opens it at once.
        let fifo = directory.appendingPathComponent("pane-output").path
        guard mkfifo(fifo, 0o600) == 0 else { throw TmuxError(message: "mkfifo \(fifo): \(String(cString: strerror(errno)))") }
        paneOutput = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard paneOutput >= 0 else { throw TmuxError(message: "open \(fifo): \(String(cString: strerror(errno)))") }
        try tmux(["pipe-pane", "-t", "main", "cat > '\(fifo)'"])
    }

    deinit {
        _ = try? Subprocess.run("/usr/bin/env", ["tmux", "-L", socket, "kill-server"])
        if paneOutput >= 0 { close(paneOutput) }
        // A shop run in the pane keeps its data in `data` here, by the tests' habit: its books add up (this folder is
        // not one `TemporaryDirectory` made, so the suite's own check does not see it).
        if Test.current != nil {
            expectShopInvariants(dataDirectory: directory.appendingPathComponent("data").path, reportingAnUnreadableShop: false)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let result = try Subprocess.run("/usr/bin/env", ["tmux", "-L", socket] + arguments)
        guard result.status == 0 else { throw TmuxError(message: "tmux \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result.stdout
    }

    /// Types a shell command line and presses Enter.
    func type(_ line: String) throws {
        try tmux(["send-keys", "-t", "main", "-l", line])
        try tmux(["send-keys", "-t", "main", "Enter"])
    }

    /// Presses keys by tmux name ("Enter", "Down", "C-c", "a").
    func press(_ keys: String...) throws { try tmux(["send-keys", "-t", "main"] + keys) }
    /// Types `text` literally, without Enter.
    func write(_ text: String) throws { try tmux(["send-keys", "-t", "main", "-l", text]) }

    /// Fills a form: types each value (an empty one keeps what is there) and presses Enter after it.
    func fill(_ values: [String]) throws {
        for value in values {
            if !value.isEmpty { try write(value) }
            try press("Enter")
        }
    }

    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", "main"]) }

    /// Everything the pane has shown: its history, then the screen; wrapped rows stay separate.
    func history() throws -> String { try tmux(["capture-pane", "-p", "-t", "main", "-S", "-", "-E", "-"]) }

    /// A tmux format value for the pane, e.g. "alternate_on" or "cursor_flag".
    func paneFlag(_ name: String) throws -> String {
        try tmux(["display-message", "-p", "-t", "main", "#{\(name)}"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", "main", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Reads the screen until `predicate` holds or `timeout` passes, again each time the pane's program writes;
    /// returns the last screen.
    @discardableResult
    func waitUntil(timeout: Duration = .seconds(15), sourceLocation: SourceLocation = #_sourceLocation, _ what: String, _ predicate: (String) -> Bool)
        throws -> String
    {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var last = ""
        var discarded = [UInt8](repeating: 0, count: 65_536)
        while true {
            // Emptied before the screen is read: whatever the program writes after that read is still waiting below.
            while read(paneOutput, &discarded, discarded.count) > 0 {}
            last = try screen()
            if predicate(last) { return last }
            if waitReadable([paneOutput], before: deadline, sourceLocation: sourceLocation).isEmpty { break }
        }
        Issue.record("timed out waiting for \(what); the screen was:\n\(last)", sourceLocation: sourceLocation)
        throw TmuxError(message: "timed out waiting for \(what)")
    }

    /// Presses Down until the selected row (marked `›`) contains `text`, waiting for each move to be drawn so no press overshoots.
    func selectRow(containing text: String, presses: Int = 30, sourceLocation: SourceLocation = #_sourceLocation) throws {
        func selected(_ screen: String) -> String? {
            screen.split(separator: "\n").first { $0.contains("›") }.map(String.init)
        }
        var current = selected(try screen())
        for _ in 0..<presses {
            if current?.contains(text) == true { return }
            let before = current
            try press("Down")
            // A capture between the old row's redraw and the new one's shows no mark at all; that is not a move yet, or
            // the next press would step over the row it landed on unchecked.
            let moved = try waitUntil(sourceLocation: sourceLocation, "the selection to move from \(before ?? "nothing")") {
                guard let now = selected($0) else { return false }
                return now != before
            }
            current = selected(moved)
        }
        if current?.contains(text) == true { return }
        Issue.record("no row containing \(text) after \(presses) presses", sourceLocation: sourceLocation)
        throw TmuxError(message: "no row containing \(text)")
    }

    /// Waits for the shop's first whole screen: the footer drawn and the first products read (no loading marker).
    @discardableResult
    func waitForShop(timeout: Duration = .seconds(15), sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try waitUntil(timeout: timeout, sourceLocation: sourceLocation, "the shop with its products") {
            $0.contains("q quit") && !$0.contains("loading") && !$0.contains("Loading")
        }
    }

    /// Waits for the shell's prompt after a command that ends `; echo EXIT=$?`: the screen's last line is the bare
    /// prompt, and the one above it says `EXIT=status`. An `EXIT=` of an earlier command on the screen is not it: a
    /// program leaving the alternate screen shows those again before its own end, and a line typed then is lost.
    @discardableResult
    func waitForExit(_ status: Int32 = 0, timeout: Duration = .seconds(15), sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try waitUntil(timeout: timeout, sourceLocation: sourceLocation, "EXIT=\(status) and the prompt") { screen in
            let lines = screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            // Its end, not the whole line: a key that reached the shell after the program (echoed) stands before it.
            return lines.last == "$" && lines.dropLast().last?.hasSuffix("EXIT=\(status)") == true
        }
    }

    @discardableResult
    func waitFor(_ text: String, timeout: Duration = .seconds(15), sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try waitUntil(timeout: timeout, sourceLocation: sourceLocation, "\"\(text)\"") { $0.contains(text) }
    }
}

struct TmuxError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension TmuxTerminal: LiveObject {}
