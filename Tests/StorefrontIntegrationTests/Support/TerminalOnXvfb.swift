import Foundation
import LiveObjects
import ShopPictures
import Testing

/// A real terminal emulator from Debian (xterm, kitty) on a private Xvfb display, running one command in a real pty:
/// keys go in with xdotool, the screen comes out with ImageMagick's `import`, and what the command writes is copied
/// (by `script -f`) to a FIFO, so a wait reads until the bytes it waits for arrive. Never a fixed sleep.
///
/// Order of calls: `init` (the display, then the terminal) → `waitForOutput` / `press` / `screenshot` → deinit ends
/// both.
final class TerminalOnXvfb {
    /// The terminals this runs, by path, and the packages they come in.
    enum Emulator: String {
        case xterm = "/usr/bin/xterm"
        /// kitty draws with OpenGL: Mesa's software renderer (`libgl1-mesa-dri`) serves it on Xvfb.
        case kitty = "/usr/bin/kitty"

        var packages: String {
            switch self {
            case .xterm: "xvfb xterm xdotool imagemagick (apt)"
            case .kitty: "xvfb kitty libgl1-mesa-dri xdotool imagemagick (apt)"
            }
        }
    }

    let display: String
    let window: String
    private let xvfb: pid_t
    private let terminal: pid_t
    private let output: Int32
    /// Everything the command wrote so far.
    private(set) var written: [UInt8] = []

    /// Starts Xvfb (its display number chosen by itself, `-displayfd`) and `emulator` with `arguments` (xterm's
    /// `-ti vt340` for sixel) running `command` in `directory`.
    init(
        _ emulator: Emulator, arguments: [String], command: String, directory: URL, environment: [String: String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for path in ["/usr/bin/Xvfb", emulator.rawValue, "/usr/bin/xdotool", "/usr/bin/import", "/usr/bin/script"]
        where !FileManager.default.isExecutableFile(atPath: path) {
            Issue.record("\(path) is missing: install \(emulator.packages)", sourceLocation: sourceLocation)
            throw TmuxError(message: "\(path) is missing")
        }
        var fds: [Int32] = [0, 0]
        guard closeOnExecPipe(&fds) else { throw TmuxError(message: "pipe: \(errno)") }
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

        let fifo = directory.appendingPathComponent("terminal-output").path
        guard mkfifo(fifo, 0o600) == 0 else { throw TmuxError(message: "mkfifo \(fifo)") }
        output = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        var settings = environment
        settings["DISPLAY"] = display
        let shell = "cd '\(directory.path)' && exec script -q -f -c \"\(command)\" '\(fifo)'"
        let run = emulator == .xterm ? ["-e", "sh", "-c", shell] : ["sh", "-c", shell]
        terminal = try spawnProcess(emulator.rawValue, arguments + run, environment: settings) { actions in
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        // xdotool waits for the window itself: a mapped one, which keys can be sent to. kitty makes a window of its own
        // before the one it shows and destroys it; focusing that one failed with BadWindow (run 55).
        let found = try Subprocess.run(
            "/usr/bin/xdotool", ["search", "--sync", "--onlyvisible", "--pid", "\(terminal)"], environment: ["DISPLAY": display],
            timeout: .seconds(60))
        guard let first = found.stdout.split(separator: "\n").first else { throw TmuxError(message: "no window: \(found.stderr)") }
        window = String(first)
    }

    deinit {
        kill(terminal, SIGTERM)
        _ = reap(terminal)
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

    /// Reads the window until its box `x` × `y` (fractions of its width and height) holds more than `enough` near-white
    /// pixels (a picture of the white mug), at most `attempts` times: the terminal paints what it read on its own time.
    /// Returns the count in the last screenshot, kept at `path`.
    func whitePixels(x: Range<Double>, y: Range<Double>, moreThan enough: Int, path: String, attempts: Int = 30) throws -> Int {
        var white = 0
        for _ in 0..<attempts where white <= enough {
            white = try pixels(x: x, y: y, path: path) { $0 >= 215 && $1 >= 215 && $2 >= 205 }
        }
        return white
    }

    /// The pixels of one screenshot in the box `x` × `y` (fractions of the window) whose red, green and blue `match`.
    func pixels(x: Range<Double>, y: Range<Double>, path: String, match: (UInt8, UInt8, UInt8) -> Bool) throws -> Int {
        let png = try PictureDecoder.decode(try screenshot(to: path), limits: .upload)
        var count = 0
        for row in Int(Double(png.height) * y.lowerBound)..<Int(Double(png.height) * y.upperBound) {
            for column in Int(Double(png.width) * x.lowerBound)..<Int(Double(png.width) * x.upperBound) {
                let at = (row * png.width + column) * 4
                if match(png.rgba[at], png.rgba[at + 1], png.rgba[at + 2]) { count += 1 }
            }
        }
        return count
    }

    /// The test's environment for a shop in the terminal: the runner's own NO_COLOR would make every terminal
    /// monochrome, and pictures are not named, so the terminal is asked.
    static func shopEnvironment(in directory: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["NO_COLOR", "STOREFRONT_PICTURES", "STOREFRONT_THEME", "TMUX", "COLUMNS", "LINES", "TERM_PROGRAM", "LC_TERMINAL"] {
            environment[name] = nil
        }
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = "C.UTF-8"
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        return environment
    }

    static func index(of text: String, in bytes: [UInt8], from start: Int = 0) -> Int? {
        let needle = Array(text.utf8)
        guard bytes.count - start >= needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool { index(of: text, in: bytes) != nil }

    /// How many times `text` is in `bytes`.
    static func count(of text: String, in bytes: [UInt8]) -> Int {
        var count = 0
        var start = 0
        while let found = index(of: text, in: bytes, from: start) {
            count += 1
            start = found + 1
        }
        return count
    }

    /// The window as PNG bytes.
    func screenshot(to path: String) throws -> [UInt8] {
        let result = try Subprocess.run("/usr/bin/import", ["-window", window, "png:" + path], environment: ["DISPLAY": display])
        guard result.status == 0 else { throw TmuxError(message: "import: \(result.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

extension TerminalOnXvfb: LiveObject {}
