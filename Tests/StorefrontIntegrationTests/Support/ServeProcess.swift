import Foundation
import LiveObjects
import StorefrontTesting
import Testing

/// A real `storefront serve` on a free loopback port with its own data directory, for one test,
/// and the OpenSSH client pointed at it.
///
/// The server's log arrives on a pipe; waiting for a line is `poll(2)` on that pipe with a
/// deadline, never a fixed sleep.
final class ServeProcess {
    let directory: URL
    let pid: pid_t
    private(set) var port = 0
    private let logReader: Int32
    private(set) var log = ""
    private var exited: Int32?

    /// The environment of a server whose sessions crash on `!`, at once: Swift's backtracer, which `.ci/run` turns on in
    /// full, would first symbolicate the 230 MB debug binary, for longer under load than a test waits for the shopper's
    /// notice.
    static let crashingOnBang = ["STOREFRONT_FAULT_CRASH_KEY": "!", "SWIFT_BACKTRACE": "enable=no"]

    /// The shop's data directory: the test's own, or the one given (to share a shop with another server).
    let dataDirectory: String
    var hostKeyPath: String { dataDirectory + "/ssh_host_ed25519_key" }

    /// Starts `command` (`serve` on a free port unless told otherwise, or `web --listen 127.0.0.1:0`) with `arguments`;
    /// returns once it listens, or at once without `waitsForListening` (the port is then 0).
    init(
        arguments: [String] = [], environment extra: [String: String] = [:], command: [String] = ["serve", "--host", "127.0.0.1", "--port", "0"],
        dataDirectory shared: String? = nil, waitsForListening: Bool = true
    ) throws {
        let binary = try BuiltProduct.requireStorefront()
        directory = TemporaryDirectory.make()
        dataDirectory = shared ?? directory.appendingPathComponent("data").path
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var fds: [Int32] = [0, 0]
        guard closeOnExecPipe(&fds) else { throw TmuxError(message: "pipe failed") }
        logReader = fds[0]
        let arguments = command + ["--data-dir", dataDirectory, "--sandbox-latency-ms", "20"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        environment["HOME"] = directory.path
        environment.merge(extra) { $1 }
        let child: pid_t
        do {
            child = try spawnProcess(binary, arguments, environment: environment) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
                posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
                posix_spawn_file_actions_addclose(&actions, fds[0])
            }
        } catch {
            close(fds[1])
            throw error
        }
        close(fds[1])
        pid = child
        guard waitsForListening else { return }
        let line = try waitForLog(#/listening on 127\.0\.0\.1:(\d+)/#)
        port = Int(line.output.1)!
    }

    deinit {
        if exited == nil { killAndReap(pid) }
        close(logReader)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Reads the log until `pattern` matches a line after `after` characters, or the deadline passes.
    @discardableResult
    func waitForLog<Output>(
        _ pattern: Regex<Output>, after offset: Int = 0, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Regex<Output>.Match {
        if let match = readLog(&log, from: logReader, until: pattern, after: offset, timeout: timeout) { return match }
        Issue.record("the server never logged \(pattern); its log was:\n\(log)", sourceLocation: sourceLocation)
        throw TmuxError(message: "timed out waiting for the server")
    }

    /// Keeps reading the log until `done` says so: while the test waits on something else, a server that logs every
    /// request would otherwise stop on a full pipe.
    func drainLog(until done: () -> Bool) {
        while !done() { _ = readLog(&log, from: logReader, until: #/\A\z.\z/#, timeout: .seconds(1)) }
    }

    /// Sends SIGTERM and waits (bounded by the server's drain) for it to exit; returns the status.
    func terminate() throws -> Int32 {
        kill(pid, SIGTERM)
        _ = try? waitForLog(#/stopped/#, timeout: .seconds(60))
        let code = shellStatus(reap(pid))
        exited = code
        return code
    }

    /// A new Ed25519 client key in the test's directory; returns its path.
    func makeClientKey(_ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        let made = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path])
        try #require(made.status == 0, "ssh-keygen failed: \(made.stderr)")
        return path
    }

    /// The fingerprint OpenSSH itself prints for the key at `path` (or its .pub).
    static func fingerprint(ofKey path: String) throws -> String {
        let listed = try Subprocess.run("/usr/bin/ssh-keygen", ["-l", "-f", path])
        return try #require(listed.stdout.firstMatch(of: /SHA256:[A-Za-z0-9+\/]{43}/).map { String($0.output) })
    }

    /// The OpenSSH client's arguments for this server, as the issue gives them, with a private known_hosts.
    func sshArguments(key: String, allocateTerminal: Bool = true) -> [String] {
        (allocateTerminal ? ["-tt"] : ["-T"]) + [
            "-p", "\(port)", "-i", key, "-o", "StrictHostKeyChecking=accept-new",
            "-F", "/dev/null", "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
            "-o", "UserKnownHostsFile=\(directory.appendingPathComponent("known_hosts").path)", "localhost",
        ]
    }

    /// The ssh command line for a shell in tmux.
    func sshCommand(key: String) -> String {
        "ssh " + sshArguments(key: key).map { "'\($0)'" }.joined(separator: " ")
    }

    /// Connects `key` from a shell in `terminal` and waits for the shop's first frame; the server's log on failure.
    func connect(_ terminal: TmuxTerminal, key: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try terminal.type(sshCommand(key: key) + "; echo EXIT=$?")
        do {
            try terminal.waitForShop(timeout: .seconds(30), sourceLocation: sourceLocation)
        } catch {
            recordLogs(sourceLocation: sourceLocation)
            throw error
        }
    }

    /// Quits the shop in `terminal` with q and waits for ssh to exit 0; the server's and the sessions' logs on failure.
    func leave(_ terminal: TmuxTerminal, timeout: Duration = .seconds(15), sourceLocation: SourceLocation = #_sourceLocation) throws {
        try terminal.press("q")
        do {
            try terminal.waitForExit(0, timeout: timeout, sourceLocation: sourceLocation)
        } catch {
            recordLogs(sourceLocation: sourceLocation)
            throw error
        }
    }

    /// What serve said on stderr and what its sessions wrote to storefront.log, for a failure's record.
    private func recordLogs(sourceLocation: SourceLocation) {
        _ = try? waitForLog(#/never/#, timeout: .milliseconds(100))
        let sessions = (try? String(contentsOfFile: dataDirectory + "/storefront.log", encoding: .utf8)) ?? "(no storefront.log)"
        Issue.record("the server's log:\n\(log)\nthe sessions' log:\n\(sessions.suffix(6_000))", sourceLocation: sourceLocation)
    }
}

extension TmuxTerminal {
    /// From the shop, as a new customer types them: a Visa that succeeds and an address; ends with One-Tap ready.
    func addCardAndAddress(name: String) throws {
        try press("u")
        try waitFor("No cards yet")
        try press("n")
        try waitFor("Add a card")
        try fill(["4242424242424242", "12/30", "123", name, "95014"])
        try waitFor("Saved Visa ••4242")
        try press("d")
        try waitFor("Add an address")
        try fill([name, "1 Loop Road", "", "Cupertino", "CA", "95014", "shopper@example.com", ""])
        try waitFor("One-Tap ready")
    }
}

/// An OpenSSH client with its stdin and output on pipes, for running many at once.
final class SSHClientProcess {
    let pid: pid_t
    let output: Int32
    private let input: Int32
    private(set) var received = ""
    private var reaped = false

    init(arguments: [String]) throws {
        var inPipe: [Int32] = [0, 0]
        var outPipe: [Int32] = [0, 0]
        guard closeOnExecPipe(&inPipe), closeOnExecPipe(&outPipe) else { throw TmuxError(message: "pipe failed") }
        let child = try spawnProcess("/usr/bin/ssh", arguments, environment: ProcessInfo.processInfo.environment) { actions in
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 2)
            for descriptor in inPipe + outPipe { posix_spawn_file_actions_addclose(&actions, descriptor) }
        }
        close(inPipe[0])
        close(outPipe[1])
        pid = child
        input = inPipe[1]
        output = outPipe[0]
        _ = fcntl(output, F_SETFL, O_NONBLOCK)
    }

    deinit {
        close(input)
        close(output)
        if !reaped { killAndReap(pid) }
    }

    /// Reads whatever is waiting; returns false at end of output.
    func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(output, &buffer, buffer.count)
            if count > 0 {
                received += String(decoding: buffer.prefix(count), as: UTF8.self)
                continue
            }
            return count < 0 && errno == EAGAIN
        }
    }

    func send(_ text: String) {
        _ = text.withCString { write(input, $0, strlen($0)) }
    }

    /// Hangs up the client as a closed laptop would, and reaps it.
    func hangUp() {
        kill(pid, SIGHUP)
        _ = reap(pid)
        reaped = true
    }
}

/// Waits on every client's output at once (poll(2)) until `done` holds for each, or the deadline.
/// Returns the clients that never got there.
func waitForAll(_ clients: [SSHClientProcess], timeout: Duration, until done: (SSHClientProcess) -> Bool) -> [SSHClientProcess] {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    var waiting = clients.filter { !done($0) }
    var ended = Set<ObjectIdentifier>()
    while !waiting.isEmpty, ContinuousClock.now < deadline {
        let ready = waitReadable(waiting.map(\.output), before: deadline)
        for client in waiting where ready.contains(client.output) {
            if !client.drain() { ended.insert(ObjectIdentifier(client)) }
        }
        waiting = waiting.filter { !done($0) && !ended.contains(ObjectIdentifier($0)) }
    }
    return clients.filter { !done($0) }
}

extension TmuxTerminal {
    /// Waits for the shell's `EXIT=<status>` line after ssh returns.
    @discardableResult
    func waitForSSHExit(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try waitUntil(timeout: .seconds(30), sourceLocation: sourceLocation, "ssh to exit") { $0.contains(/EXIT=\d/) }
    }
}

/// Reads a server's log from the pipe `reader` into `log` until `pattern` matches a line after `offset` characters;
/// nil once `timeout` passes or the pipe closes. Waiting is `poll(2)` on the pipe, never a fixed sleep.
func readLog<Output>(_ log: inout String, from reader: Int32, until pattern: Regex<Output>, after offset: Int = 0, timeout: Duration) -> Regex<Output>
    .Match?
{
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while true {
        if let match = log.dropFirst(offset).split(separator: "\n").lazy.compactMap({ try? pattern.firstMatch(in: String($0)) }).first {
            return match
        }
        guard !waitReadable([reader], before: deadline).isEmpty else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = read(reader, &buffer, buffer.count)
        if count <= 0 { return nil }
        log += String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}

extension ServeProcess: LiveObject {}
extension SSHClientProcess: LiveObject {}
