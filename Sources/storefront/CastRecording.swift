import Foundation
import PseudoTerminal
import StorefrontUI
import TerminalNCurses

/// A key script's session written as an asciicast v2 file (the format asciinema plays): the shop
/// runs in a pty of its own, as at a terminal, so the file holds the very bytes a terminal would
/// receive. Each key's answer is one event, the keys a steady `pace` apart, so the same script on
/// the same shop gives the same file. An answer is whole when the shop writes its settled marker
/// (`TerminalSession.settledMarker`, asked for through the environment), which is left out of the file.
///
/// Order of calls: spawn `storefront run` in a pty → take its first frame → each key, then its
/// answer → `q` unless the script quit → wait for the exit (the terminal given back) → write the file.
struct CastRecording {
    var executable: String
    var arguments: [String]
    var environment: [String: String]
    var size: Size
    var pace: Duration

    /// The longest any one answer may take.
    static let answerLimit = Duration.seconds(60)

    /// One step of a recorded script: a key, or the mouse as a terminal reports it.
    enum Step: Equatable {
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
    static func steps(_ script: String) throws -> [Step] {
        try Key.scriptEntries(script).map { entry in
            switch entry.name {
            case "wheelup": return .wheel(down: false)
            case "wheeldown": return .wheel(down: true)
            default:
                if let click = entry.name.wholeMatch(of: /click@(\d{1,4})x(\d{1,4})/), let column = Int(click.1), let row = Int(click.2), column >= 1, row >= 1 {
                    return .click(column: column, row: row)
                }
                guard let key = entry.key else { throw KeyScriptError(position: entry.position, name: entry.written) }
                return .key(key)
            }
        }
    }

    struct Event {
        var time: Double
        var output: [UInt8]
    }

    /// Runs the script and returns the events, and the program's termination.
    func record(_ steps: [Step]) throws -> (events: [Event], termination: ProcessTermination) {
        let process = try PseudoTerminalProcess.spawn(
            executable: executable, arguments: arguments, environment: environment,
            size: TerminalSize(columns: size.columns, rows: size.rows)
        )
        let terminal = process.takeTerminal()
        defer { close(terminal) }
        var events: [Event] = []
        // Times from whole milliseconds, so the file reads 1.2, not a sum's 1.2000000000000002.
        let stepMilliseconds = Int(pace.components.seconds) * 1000 + Int(pace.components.attoseconds / 1_000_000_000_000_000)
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
            RecordingFile.writeAll(step.terminalBytes, to: terminal)
            if step == .key(.character("q")) { quitting = true }
            try answer(at: time)
        }
        if !ended && !quitting {
            elapsedMilliseconds += stepMilliseconds
            RecordingFile.writeAll(Key.character("q").terminalBytes, to: terminal)
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

struct CastRecordingError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// What both recorders need of files and descriptors.
enum RecordingFile {
    /// The recording's URL, once its folder is known to exist; says so and exits 73 when it does not.
    static func checked(_ path: String) throws -> URL {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        let folder = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            complain("cannot write \(path): the folder \(folder) does not exist")
            throw ExitCodes.cannotCreate
        }
        return url
    }

    /// Writes the recording as asciicast v2 (a header line, then one `[time, "o", text]` line per
    /// event); says so and exits 73 when the file cannot be written.
    static func write(_ events: [CastRecording.Event], size: Size, term: String, title: String, to url: URL) throws {
        do {
            let header: [String: Any] = ["version": 2, "width": size.columns, "height": size.rows, "title": title, "env": ["TERM": term]]
            var lines = [String(decoding: try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]), as: UTF8.self)]
            for event in events {
                let text = String(decoding: event.output, as: UTF8.self)
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: [event.time, "o", text] as [Any], options: [.withoutEscapingSlashes]), as: UTF8.self))
            }
            try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        } catch {
            complain("cannot write \(url.path): \(error.localizedDescription)")
            throw ExitCodes.cannotCreate
        }
    }

    /// Writes every byte, through short writes and interruptions; stops when the descriptor is gone.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBufferPointer { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written <= 0 { if errno == EINTR { continue } else { return } }
            offset += written
        }
    }
}
