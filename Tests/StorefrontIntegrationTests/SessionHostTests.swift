import Foundation
import LiveObjects
import StorefrontTesting
import Testing

@testable import PseudoTerminal

/// Sessions forked from the session host (the built `storefront`, started as one): what each fork runs, on which
/// terminal, how its end is heard, and what happens when the host itself dies.
@Suite("Sessions forked from a session host", .ownThreads)
struct SessionHostTests {
    /// Lines the client logs, kept for the test to read.
    final class Log: @unchecked Sendable, LiveObject {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var text: String { lock.withLock { lines.joined(separator: "\n") } }
    }

    private func startHost(_ log: Log = Log(), answerTimeout: Duration = .seconds(5)) throws -> SessionHostClient {
        try SessionHostClient.start(
            executable: BuiltProduct.requireStorefront(), environment: ["PATH": "/usr/bin:/bin"], answerTimeout: answerTimeout
        ) { log.append($0) }
    }

    /// Reads the pty until `text` has appeared; false if the program ended first or 30 s passed.
    private func readTerminal(_ terminal: Int32, until text: String) -> Bool {
        var seen = [UInt8]()
        return read(terminal, into: &seen, before: .now + .seconds(30)) { $0.contains(text) } == .found
    }

    private func statFields(of pid: pid_t) throws -> [String] {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        return stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ").map(String.init)
    }

    @Test func theHostKeepsNoStacksOfEndedThreadsNorThreadCachesAndKeepsTheCallersTunables() {
        let ours = "glibc.pthread.stack_cache_size=0:glibc.malloc.tcache_count=0"
        let plain = SessionHostClient.hostEnvironment(from: ["PATH": "/bin"])
        #expect(plain == ["PATH": "/bin", SessionHost.variable: "3", "GLIBC_TUNABLES": ours])
        let tuned = SessionHostClient.hostEnvironment(from: ["GLIBC_TUNABLES": "glibc.malloc.check=3"])
        #expect(tuned["GLIBC_TUNABLES"] == "glibc.malloc.check=3:" + ours)
    }

    @Test func aForkRunsItsArgumentsOnItsTerminalAndItsEndIsHeard() async throws {
        let host = try startHost()
        defer { host.stop() }
        let version = try await PseudoTerminalProcess.spawn(
            arguments: ["--version"], environment: ["PATH": "/usr/bin:/bin"], size: TerminalSize(columns: 80, rows: 24), host: host
        )
        #expect(version.readAllOutput().contains("0.1.0"))
        #expect(await version.exited() == .exited(0))
        #expect(!version.signal(0), "reaped by the host: its pidfd names no process")

        // The request's environment, not the host's: a dumb terminal is refused on the pty, with the shop's exit code.
        let dumb = try await PseudoTerminalProcess.spawn(
            arguments: ["run", "--data-dir", TemporaryDirectory.make().path], environment: ["TERM": "dumb", "PATH": "/usr/bin:/bin"],
            size: TerminalSize(columns: 80, rows: 24), host: host
        )
        let said = dumb.readAllOutput()
        #expect(await dumb.exited() == .exited(69), "said: \(said)")
        #expect(said.contains("dumb"), "said: \(said)")
    }

    @Test func aForkLeadsItsOwnSessionOnThePtyAndEndsBySignal() async throws {
        let host = try startHost()
        defer { host.stop() }
        let shop = try await PseudoTerminalProcess.spawn(
            arguments: ["run", "--data-dir", TemporaryDirectory.make().path, "--theme", "dark"],
            environment: ["TERM": "xterm-256color", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], size: TerminalSize(columns: 90, rows: 30), host: host
        )
        let terminal = shop.takeTerminal()
        defer { close(terminal) }
        #expect(readTerminal(terminal, until: "quit"), "the first frame")
        let fields = try statFields(of: shop.pid)
        #expect(fields[1] == String(host.hostPID ?? 0), "a child of the host")
        #expect(fields[3] == String(shop.pid), "the leader of its own session")
        #expect(fields[4] != "0", "with the pty as its controlling terminal")

        #expect(shop.signal(SIGHUP))
        let ending = await shop.exited()
        #expect(ending == .signalled(SIGHUP) || ending == .exited(129), "a hangup ends it, heard from the host: \(ending)")
        #expect(!shop.signal(0))
    }

    @Test func aDeadHostsSessionsGoOnAndTheNextSessionGetsANewHost() async throws {
        let log = Log()
        let host = try startHost(log)
        defer { host.stop() }
        let first = try #require(host.hostPID)
        let shop = try await PseudoTerminalProcess.spawn(
            arguments: ["run", "--data-dir", TemporaryDirectory.make().path, "--theme", "dark"],
            environment: ["TERM": "xterm-256color", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], size: TerminalSize(columns: 80, rows: 24), host: host
        )
        let terminal = shop.takeTerminal()
        defer { close(terminal) }
        #expect(readTerminal(terminal, until: "quit"))

        kill(first, SIGKILL)
        // The session outlives its host: it still answers a key.
        _ = "c".withCString { write(terminal, $0, 1) }
        #expect(readTerminal(terminal, until: "Your cart is empty"), "the running session answers after its host died")

        // Its end is still heard (through its pidfd), though no one can say how it ended.
        #expect(shop.signal(SIGKILL))
        #expect(await shop.exited() == .unknown)

        let next = try await PseudoTerminalProcess.spawn(
            arguments: ["--version"], environment: [:], size: TerminalSize(columns: 80, rows: 24), host: host
        )
        #expect(next.readAllOutput().contains("0.1.0"))
        #expect(await next.exited() == .exited(0))
        #expect(host.hostPID != first, "a new host")
        #expect(log.text.contains("session host ended (SIGKILL) with 1 session(s) running"), "log: \(log.text)")
        #expect(log.text.contains("session host: it had ended; starting a new one"), "log: \(log.text)")
    }

    @Test(.timeLimit(.minutes(1)))
    func aHostThatDoesNotAnswerInTimeIsGivenUpOnAndServesTheNextSession() async throws {
        let log = Log()
        let host = try startHost(log, answerTimeout: .milliseconds(300))
        defer { host.stop() }
        let pid = try #require(host.hostPID)
        kill(pid, SIGSTOP)
        let refused: Error? = await {
            do {
                _ = try await PseudoTerminalProcess.spawn(
                    arguments: ["--version"], environment: [:], size: TerminalSize(columns: 80, rows: 24), host: host)
                return nil
            } catch { return error }
        }()
        #expect("\(refused.map { "\($0)" } ?? "no error")".contains("the session host did not answer within 0.3 seconds"))

        // Its late answer finds no one waiting (the refused session's pty is gone), and the next session is its own,
        // waited for as long as a busy machine needs.
        kill(pid, SIGCONT)
        host.answerTimeout = .seconds(30)
        let next = try await PseudoTerminalProcess.spawn(
            arguments: ["--version"], environment: [:], size: TerminalSize(columns: 80, rows: 24), host: host)
        #expect(next.readAllOutput().contains("0.1.0"))
        #expect(await next.exited() == .exited(0))
        #expect(host.hostPID == pid, "the same host: a slow one is not replaced")
        #expect(!log.text.contains("ended"), "log: \(log.text)")
    }
}
