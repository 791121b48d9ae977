import Foundation
import LiveObjects
import Testing

/// A headless Chromium driven through `Support/browser.py` (Selenium and chromedriver): one JSON command a line.
///
/// Order of calls: `init` (starts the browser at a window size) → `open` the page → `wait`, `keys`, `resize`,
/// `screenshot` … → `quit` (also on deinit).
final class Browser {
    private let process: Process
    private let input: FileHandle
    private let output: Int32
    private var buffered: [UInt8] = []

    /// What a test needs installed, named when it is not.
    static let packages = "chromium chromium-driver python3-selenium (apt)"

    init(width: Int = 1100, height: Int = 700, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for path in ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/python3"] where !FileManager.default.isExecutableFile(atPath: path) {
            Issue.record("\(path) is missing: install \(Self.packages)", sourceLocation: sourceLocation)
            throw TmuxError(message: "\(path) is missing")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("browser.py").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script]
        let toBrowser = Pipe()
        let fromBrowser = Pipe()
        process.standardInput = toBrowser
        process.standardOutput = fromBrowser
        process.standardError = FileHandle.nullDevice
        try process.run()
        input = toBrowser.fileHandleForWriting
        output = fromBrowser.fileHandleForReading.fileDescriptor
        let started = try command(["width": width, "height": height], timeout: .seconds(60))
        guard started["ok"] as? Bool == true else {
            Issue.record("the browser did not start: \(started["error"] ?? started); install \(Self.packages)", sourceLocation: sourceLocation)
            throw TmuxError(message: "no browser")
        }
    }

    deinit {
        if process.isRunning {
            _ = try? command(["op": "quit"], timeout: .seconds(20))
            process.terminate()
        }
        process.waitUntilExit()
    }

    /// Sends one command and returns its answer; throws when none comes within `timeout`.
    @discardableResult
    func command(_ fields: [String: Any], timeout: Duration = .seconds(60)) throws -> [String: Any] {
        let line = try JSONSerialization.data(withJSONObject: fields) + Data("\n".utf8)
        try input.write(contentsOf: line)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffered.firstIndex(of: 10) {
                let answer = Data(buffered[..<newline])
                buffered.removeFirst(newline + 1)
                return (try JSONSerialization.jsonObject(with: answer) as? [String: Any]) ?? [:]
            }
            guard !waitReadable([output], before: deadline).isEmpty else {
                throw TmuxError(message: "the browser did not answer \(fields["op"] ?? "start") in time")
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(output, &chunk, chunk.count)
            guard count > 0 else { throw TmuxError(message: "the browser driver exited") }
            buffered += chunk[0..<count]
        }
    }

    /// Runs `fields` and fails the test with the driver's error unless it answered ok.
    @discardableResult
    func must(_ fields: [String: Any], timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let answer = try command(fields, timeout: timeout)
        guard answer["ok"] as? Bool == true else {
            let screen = (answer["screen"] as? [String: Any])?["rows"] as? [String] ?? []
            Issue.record("\(fields["op"] ?? "?"): \(answer["error"] ?? "failed")\n\(screen.joined(separator: "\n"))", sourceLocation: sourceLocation)
            throw TmuxError(message: "\(answer["error"] ?? "browser command failed")")
        }
        return answer
    }

    /// The terminal's rows as the page's xterm.js holds them, and its size.
    func screen() throws -> (rows: [String], columns: Int, lines: Int) {
        let answer = try must(["op": "rows"])
        let screen = answer["screen"] as? [String: Any] ?? [:]
        return (screen["rows"] as? [String] ?? [], screen["columns"] as? Int ?? 0, screen["lines"] as? Int ?? 0)
    }

    /// Waits until `text` is on the terminal (or in the page's status box); returns the screen as text.
    @discardableResult
    func waitFor(_ text: String, timeout: Int = 30, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let answer = try must(["op": "wait", "text": text, "timeout": timeout], timeout: .seconds(timeout + 30), sourceLocation: sourceLocation)
        return ((answer["screen"] as? [String: Any])?["rows"] as? [String] ?? []).joined(separator: "\n")
    }

    /// Types `keys` into the terminal as keystrokes (names such as ENTER and DOWN, or text).
    func press(_ keys: String...) throws {
        try must(["op": "keys", "keys": keys])
    }
}

extension Browser: LiveObject {}
