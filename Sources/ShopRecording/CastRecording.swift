import Foundation
import PseudoTerminal
import ShopModels
import StorefrontUI
import SystemPackage
import TerminalNCurses

/// A key script's session written as an asciicast v2 file (the format asciinema plays): the shop
/// runs in a pty of its own, as at a terminal, so the file holds the very bytes a terminal would
/// receive. Each key's answer is one event, the keys a steady `pace` apart, so the same script on
/// the same shop gives the same file. An answer is whole when the shop writes its settled marker
/// (`TerminalSession.settledMarker`, asked for through the environment), which is left out of the file.
///
/// Order of calls: spawn `storefront run` in a pty → take its first frame → each key, then its
/// answer → `q` unless the script quit → wait for the exit (the terminal given back) → write the file.
public struct CastRecording {
    public var executable: String
    public var arguments: [String]
    public var environment: [String: String]
    public var size: Size
    public var pace: Duration

    public init(executable: String, arguments: [String], environment: [String: String], size: Size, pace: Duration) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.size = size
        self.pace = pace
    }

    /// The longest any one answer may take.
    static let answerLimit = Duration.seconds(60)

    /// How many presses of Esc a script that ends inside a form may take to leave it.
    static let formDepthLimit = 4

    /// One step of a recorded script: a key, or the mouse as a terminal reports it.
    public enum Step: Equatable, Sendable {
        case key(Key)
        /// A left click (press and release) on a cell, counted from 1 as terminals count.
        case click(column: Int, row: Int)
        case wheel(down: Bool)

        /// The bytes an xterm in SGR mouse mode (1006) sends.
        var terminalBytes: [UInt8] {
            switch self {
            case .key(let key): key.terminalBytes
            case .click(let column, let row): Array("\u{1B}[<0;\(column);\(row)M\u{1B}[<0;\(column);\(row)m".utf8)
            case .wheel(let down): Array("\u{1B}[<\(down ? 65 : 64);1;1M".utf8)
            }
        }
    }

    /// A `--keys` script for a recording: key names, and `click@COLxROW` (from 1, as a terminal
    /// counts), `wheelup`, `wheeldown`.
    public static func steps(_ script: String) throws -> [Step] {
        try Key.scriptEntries(script).map { entry in
            switch entry.name {
            case "wheelup": return .wheel(down: false)
            case "wheeldown": return .wheel(down: true)
            default:
                if let click = entry.name.wholeMatch(of: /click@(\d{1,4})x(\d{1,4})/), let column = Int(click.1), let row = Int(click.2), column >= 1,
                    row >= 1
                {
                    return .click(column: column, row: row)
                }
                guard let key = entry.key else { throw KeyScriptError(position: entry.position, name: entry.written) }
                return .key(key)
            }
        }
    }

    /// One line of the file: what the terminal received ("o"), or its new size ("r", as "COLSxROWS").
    public struct Event: Sendable {
        public var time: Double
        public var output: [UInt8]
        public var code = "o"

        /// The terminal became `size` at `time`.
        static func resize(at time: Double, to size: Size) -> Event {
            Event(time: time, output: Array("\(size.columns)x\(size.rows)".utf8), code: "r")
        }
    }

    /// Runs the script and returns the events, and the program's termination.
    public func record(_ steps: [Step]) throws -> (events: [Event], termination: ProcessTermination) {
        let process = try PseudoTerminalProcess.spawn(
            executable: executable, arguments: arguments, environment: environment,
            size: TerminalSize(columns: size.columns, rows: size.rows)
        )
        let terminal = process.takeTerminal()
        defer { close(terminal) }
        var events: [Event] = []
        // Times from whole milliseconds, so the file reads 1.2, not a sum's 1.2000000000000002.
        let stepMilliseconds = pace.wholeMilliseconds
        var elapsedMilliseconds = 0
        var time: Double { Double(elapsedMilliseconds) / 1000 }
        var ended = false
        // Forms are left out, as in a live recording: the shop marks them when asked to.
        var forms = PrivateSections()
        func answer(at time: Double) throws {
            let (drawn, closed) = try Self.readAnswer(from: terminal)
            let output = forms.recordable(drawn)
            if !output.isEmpty { events.append(Event(time: time, output: output)) }
            ended = ended || closed
        }
        try answer(at: 0)
        var quitting = false
        for step in steps where !ended {
            elapsedMilliseconds += stepMilliseconds
            writeAll(step.terminalBytes, to: terminal)
            if step == .key(.character("q")) { quitting = true }
            try answer(at: time)
        }
        if !ended && !quitting {
            // A script may end inside a form, where `q` is typed, not obeyed: Esc leaves each form first
            // (one Esc a form, as a chooser's form opens from the sheet), so the recording always ends.
            var escapes = 0
            while !ended && forms.isInsideForm && escapes < Self.formDepthLimit {
                escapes += 1
                elapsedMilliseconds += stepMilliseconds
                writeAll(Key.escape.terminalBytes, to: terminal)
                try answer(at: time)
            }
            guard !forms.isInsideForm else {
                throw CastRecordingError(message: "the script ended inside a form that \(Self.formDepthLimit) presses of Esc did not leave")
            }
            elapsedMilliseconds += stepMilliseconds
            writeAll(Key.character("q").terminalBytes, to: terminal)
            try answer(at: time)
        }
        // What the shop writes as it ends (the terminal given back) comes before the end of file.
        while !ended { try answer(at: time) }
        return (events, process.waitForExit())
    }

    /// Reads until the shop says its answer is drawn (the marker, left out) or closes the terminal.
    private static func readAnswer(from terminal: Int32) throws -> (output: [UInt8], closed: Bool) {
        let marker = Array(TerminalSession.settledMarker.utf8)
        let clock = ContinuousClock()
        let limit = clock.now.advanced(by: answerLimit)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while clock.now < limit {
            if let range = output.firstRange(of: marker) {
                output.removeSubrange(range)
                return (output, false)
            }
            var descriptor = pollfd(fd: terminal, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 1000)
            if ready < 0 { if errno == EINTR { continue } else { return (output, true) } }
            if ready == 0 { continue }
            let count = read(terminal, &buffer, buffer.count)
            // EIO: the program exited and the pty's other side is closed.
            if count <= 0 { return (output, true) }
            output += buffer.prefix(count)
        }
        throw CastRecordingError(message: "the shop did not finish drawing within \(answerLimit)")
    }
}

public struct CastRecordingError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Why a recording's file cannot be written; the executable ends the command with 73.
public struct RecordingFileError: Error, CustomStringConvertible {
    public var description: String
}

/// What both recorders need of files and descriptors.
public enum RecordingFile {
    /// The recording's URL, once its folder is known to exist and the file not to (unless `force`); refuses
    /// otherwise, before anything is recorded.
    public static func checked(_ path: FilePath, force: Bool) throws(RecordingFileError) -> URL {
        let url = URL(fileURLWithPath: path.string)
        var isDirectory: ObjCBool = false
        let folder = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RecordingFileError(description: "cannot write \(path): the folder \(folder) does not exist")
        }
        var info = stat()
        if path.withPlatformString({ lstat($0, &info) }) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw RecordingFileError(description: "cannot write \(path): it exists and is not a regular file")
            }
            guard force else {
                throw RecordingFileError(description: "cannot write \(path): it exists; pass --force to replace it")
            }
        }
        return url
    }

    /// Writes the recording as asciicast v2 (a header line, then one `[time, code, data]` line per event),
    /// readable by its owner only (it may show a wallet or an address), into a new file renamed over the
    /// path, so a file being replaced is never half written; refuses when it cannot be written.
    ///
    /// `title` names what was recorded, never the keys: they may be a card number typed into a form.
    public static func write(_ events: [CastRecording.Event], size: Size, term: String, title: String, to url: URL, force: Bool)
        throws(RecordingFileError)
    {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).partial")
        do {
            let header: [String: Any] = ["version": 2, "width": size.columns, "height": size.rows, "title": title, "env": ["TERM": term]]
            var lines = [String(decoding: try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]), as: UTF8.self)]
            for event in events {
                let text = String(decoding: event.output, as: UTF8.self)
                lines.append(
                    String(
                        decoding: try JSONSerialization.data(
                            withJSONObject: [event.time, event.code, text] as [Any], options: [.withoutEscapingSlashes]), as: UTF8.self))
            }
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
            let written = writeAll(bytes, to: descriptor)
            let synced = fsync(descriptor) == 0
            close(descriptor)
            guard written, synced else { throw POSIXError(.EIO) }
            // link(2) refuses an existing name, so a file that appeared while recording is not replaced unasked.
            let placed = force ? rename(temporary.path, url.path) : link(temporary.path, url.path)
            guard placed == 0 else {
                let code = errno
                if code == EEXIST { throw RecordingFileExists() }
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
            if !force { unlink(temporary.path) }
        } catch {
            unlink(temporary.path)
            throw RecordingFileError(
                description:
                    "cannot write \(url.path): \(error is RecordingFileExists ? "it appeared while recording; pass --force to replace it" : error.localizedDescription)"
            )
        }
    }

    private struct RecordingFileExists: Error {}

}
