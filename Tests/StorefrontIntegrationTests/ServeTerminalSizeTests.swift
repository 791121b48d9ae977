import Foundation
import LiveObjects
import PseudoTerminal
import StorefrontTesting
import Testing

/// A client cannot choose how much memory its session allocates: the pty it asks for is bounded.
@Suite("Serving over SSH: terminal size bound", .serialized, .ownThreads)
struct ServeTerminalSizeTests {
    /// The real OpenSSH client on a pty of our own, so it can ask for any size and change it.
    private final class HugeClient: LiveObject {
        let process: PseudoTerminalProcess
        let terminal: Int32
        private var bytes: [UInt8] = []
        var received: String { String(decoding: bytes, as: UTF8.self) }
        private var termination: ProcessTermination?

        init(executable: String = "/usr/bin/ssh", arguments: [String], size: TerminalSize, environment extra: [String: String] = [:]) throws {
            var environment = ProcessInfo.processInfo.environment
            environment["TERM"] = "xterm-256color"
            environment["LANG"] = "C.UTF-8"
            environment.merge(extra) { $1 }
            process = try PseudoTerminalProcess.spawn(executable: executable, arguments: arguments, environment: environment, size: size)
            terminal = process.takeTerminal()
        }

        deinit {
            close(terminal)
            if termination == nil {
                process.signal(SIGKILL)
                _ = process.waitForExit()
            }
        }

        /// Reaps the program (once) and says how it ended.
        func waitForExit() -> ProcessTermination {
            if let termination { return termination }
            blockingWaitAllowed("waiting for ssh to end")
            let ended = process.waitForExit()
            termination = ended
            return ended
        }

        /// Reads until `text` has arrived since `offset`, with a deadline (poll(2), no sleeps).
        func waitFor(_ text: String, after offset: Int, timeout: Duration = .seconds(60)) throws {
            switch read(terminal, into: &bytes, before: .now + timeout, until: { $0.dropFirst(offset).contains(text) }) {
            case .found: return
            case .timedOut: throw TmuxError(message: "never saw \(text.debugDescription); last: \(received.suffix(200).debugDescription)")
            case .closed: throw TmuxError(message: "the client's terminal closed: \(received.suffix(200).debugDescription)")
            }
        }

        func type(_ text: String) { _ = text.withCString { write(terminal, $0, strlen($0)) } }
    }

    /// The session process's peak resident memory, from /proc.
    private func peakResidentMegabytes(of pid: pid_t) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Double(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes / 1024
    }

    @Test func aSessionAskingFor10000x10000IsDrawnAtTheCapAndStaysSmall() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("huge")
        let client = try HugeClient(arguments: server.sshArguments(key: key), size: TerminalSize(columns: 10_000, rows: 10_000))
        let opened = try server.waitForLog(#/session 1 open: .* pid (\d+), \S+ (\d+x\d+) \(asked for (\d+x\d+)\)/#)
        #expect(opened.output.2 == "640x240")
        #expect(opened.output.3 == "10000x10000")
        let pid = try #require(pid_t(opened.output.1))
        try client.waitFor("quit", after: 0)

        // Window changes past the cap, then back, then past it again: the shop keeps answering keys.
        try client.process.resize(to: TerminalSize(columns: 9_000, rows: 12_000))
        var mark = client.received.count
        client.type("a")
        try client.waitFor("Added", after: mark)
        try client.process.resize(to: TerminalSize(columns: 100, rows: 30))
        mark = client.received.count
        client.type("c")
        try client.waitFor("Your cart", after: mark)
        try client.process.resize(to: TerminalSize(columns: 10_000, rows: 10_000))
        mark = client.received.count
        client.type("s")
        try client.waitFor("Products", after: mark)

        // 80x24 peaks near 44 MB and 1000x1000 took 146 MB before the cap; the cap adds ~15 MB.
        let peak = try peakResidentMegabytes(of: pid)
        // docs/BENCHMARKS.md ("A huge terminal") quotes this line.
        print("serve session asking 10000x10000: peak RSS \(peak) MB")
        #expect(peak < 96, "the session peaked at \(peak) MB")
        client.type("q")
        try server.waitForLog(#/session 1 closed: finished/#)
    }

    @Test func runOnA10000x10000TerminalIsDrawnAtTheCapAndStaysSmall() throws {
        let directory = TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let shop = try HugeClient(
            executable: try BuiltProduct.requireStorefront(), arguments: ["run", "--data-dir", directory.path + "/data"],
            size: TerminalSize(columns: 10_000, rows: 10_000), environment: ["XDG_CONFIG_HOME": directory.path + "/config"]
        )
        try shop.waitFor("quit", after: 0)
        try shop.process.resize(to: TerminalSize(columns: 12_000, rows: 9_000))
        let mark = shop.received.count
        shop.type("a")
        try shop.waitFor("Added", after: mark)
        let peak = try peakResidentMegabytes(of: shop.process.pid)
        print("run on a 10000x10000 pty: peak RSS \(peak) MB")
        #expect(peak < 96, "the shop peaked at \(peak) MB")
        shop.type("q")
        #expect(shop.waitForExit() == .exited(0))
    }
}
