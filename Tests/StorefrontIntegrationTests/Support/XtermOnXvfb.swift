import Foundation
import LiveObjects
import Testing

/// Debian's xterm on a private Xvfb display, running one command in a real pty: keys go in with xdotool, the screen
/// comes out with ImageMagick's `import`, and what the command writes is copied (by `script -f`) to a FIFO, so a wait
/// reads until the bytes it waits for arrive. Never a fixed sleep.
///
/// Order of calls: `init` (the display, then xterm) → `waitForOutput` / `press` / `screenshot` → deinit ends both.
final class XtermOnXvfb {
    static let packages = "xvfb xterm xdotool imagemagick (apt)"

    let display: String
    let window: String
    private let xvfb: pid_t
    private let xterm: pid_t
    private let output: Int32
    /// Everything the command wrote so far.
    private(set) var written: [UInt8] = []

    /// Starts Xvfb (its display number chosen by itself, `-displayfd`) and xterm with `arguments` (`-ti vt340` for
    /// sixel) running `command` in `directory`.
    init(arguments: [String], command: String, directory: URL, environment: [String: String], sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        for path in ["/usr/bin/Xvfb", "/usr/bin/xterm", "/usr/bin/xdotool", "/usr/bin/import", "/usr/bin/script"]
        where !FileManager.default.isExecutableFile(atPath: path) {
            Issue.record("\(path) is missing: install \(Self.packages)", sourceLocation: sourceLocation)
            throw TmuxError(message: "\(path) is missing")
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw TmuxError(message: "pipe: \(errno)") }
        let writeEnd = fds[1]
        xvfb = try spawnProcess("/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1300x800x24", "-nolisten", "tcp"], environment: [:]) {
            actions in
            posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        close(writeEnd)
        var number: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while !number.contains(10), !waitReadable([fds[0]], before: deadline).isEmpty {
            var byte: UInt8 = 0
            guard read(fds[0], &byte, 1) == 1 else { break }
            number.append(byte)
        }
        close(fds[0])
        guard let value = Int(String(decoding: number, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(xvfb, SIGKILL)
            throw TmuxError(message: "Xvfb named no display")
        }
        display = ":\(value)"

        let fifo = directory.appendingPathComponent("xterm-output").path
        guard mkfifo(fifo, 0o600) == 0 else { throw TmuxError(message: "mkfifo \(fifo)") }
        output = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        var settings = environment
        settings["DISPLAY"] = display
        let shell = "cd '\(directory.path)' && exec script -q -f -c \"\(command)\" '\(fifo)'"
        xterm = try spawnProcess("/usr/bin/xterm", arguments + ["-e", "sh", "-c", shell], environment: settings) { actions in
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // xdotool waits for the window itself.
        let found = try Subprocess.run(
            "/usr/bin/xdotool", ["search", "--sync", "--pid", "\(xterm)"], environment: ["DISPLAY": display], timeout: .seconds(60))
        guard let first = found.stdout.split(separator: "\n").first else { throw TmuxError(message: "no xterm window: \(found.stderr)") }
        window = String(first)
    }

    deinit {
        kill(xterm, SIGTERM)
        _ = reap(xterm)
        kill(xvfb, SIGTERM)
        _ = reap(xvfb)
        close(output)
    }

    /// Reads what the command writes until `done` holds for all of it, or the deadline; false at the deadline.
    @discardableResult
    func waitForOutput(timeout: Duration = .seconds(30), _ done: ([UInt8]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !done(written) {
            if waitReadable([output], before: deadline).isEmpty { return false }
            let count = read(output, &buffer, buffer.count)
            if count > 0 { written += buffer.prefix(count) }
        }
        return true
    }

    /// Presses keys by X's names ("Down", "Return", "Escape"), as a keyboard would (XTEST, into the focused window:
    /// xterm ignores keys sent to it as events).
    func press(_ keys: String...) throws {
        let result = try Subprocess.run("/usr/bin/xdotool", ["windowfocus", "--sync", window, "key"] + keys, environment: ["DISPLAY": display])
        guard result.status == 0 else { throw TmuxError(message: "xdotool: \(result.stderr)") }
    }

    /// The window as PNG bytes.
    func screenshot(to path: String) throws -> [UInt8] {
        let result = try Subprocess.run("/usr/bin/import", ["-window", window, "png:" + path], environment: ["DISPLAY": display])
        guard result.status == 0 else { throw TmuxError(message: "import: \(result.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

extension XtermOnXvfb: LiveObject {}
