import Foundation
import LiveObjects
import StorefrontTesting
import Testing

/// A Stripe-API server of the test's own: localstripe (PyPI), run by `scripts/localstripe-loopback`
/// as a real process on a loopback port, its state in a temporary file. Stopped when released.
///
/// When localstripe is not installed, starting one fails the test with the package's name.
final class LocalStripe: @unchecked Sendable {
    /// A test-mode key: localstripe takes any `sk_` key, and the shop refuses anything that is not one.
    static let secretKey = "sk_test_storefrontLocalStripe4f9a27"

    private(set) var port = 0
    private var pid: pid_t = 0
    private let stateFile: String
    private let errorFile: String

    var base: String { "http://127.0.0.1:\(port)" }

    init(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        stateFile = directory.appendingPathComponent("localstripe.state").path
        errorFile = directory.appendingPathComponent("localstripe.err").path
        try launch(port: 0, sourceLocation: sourceLocation)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: (stateFile as NSString).deletingLastPathComponent)
    }

    /// Stops the server as a crash would (SIGKILL); its state stays in the file.
    func stop() {
        Self.stopServer(pid)
        pid = 0
    }

    /// Starts it again on the same port, from the state it had.
    func restart(sourceLocation: SourceLocation = #_sourceLocation) throws {
        stop()
        try launch(port: port, sourceLocation: sourceLocation)
    }

    private func launch(port wanted: Int, sourceLocation: SourceLocation) throws {
        (pid, port) = try Self.startServer(
            [Self.script("localstripe-loopback"), stateFile] + (wanted > 0 ? [String(wanted)] : []), errorFile: errorFile,
            what: "localstripe (PyPI: localstripe; install it with `python3 -m pip install localstripe`)", sourceLocation: sourceLocation
        )
    }

    /// Starts a Python server of the tests (`arguments`: its script and theirs) and reads the port it announces
    /// ("listening PORT"); one that ends first fails the test, naming `what` and quoting its stderr.
    static func startServer(_ arguments: [String], errorFile: String, what: String, sourceLocation: SourceLocation) throws -> (pid_t, Int) {
        let (child, line) = try spawnAnnouncing(["/usr/bin/env", "python3"] + arguments, errorFile: errorFile)
        guard let line, let port = Int(line.dropFirst("listening ".count)) else {
            _ = reap(child)
            let why = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
            Issue.record("\(what) did not start: \(why)", sourceLocation: sourceLocation)
            throw TmuxError(message: "\(what) did not start")
        }
        return (child, port)
    }

    /// Stops a server started with `startServer` and reaps it.
    static func stopServer(_ pid: pid_t) {
        guard pid > 0 else { return }
        killAndReap(pid)
    }

    /// Starts `command` with stdout on a pipe and reads its first line ("listening PORT"); nil if it ended first.
    static func spawnAnnouncing(_ command: [String], errorFile: String) throws -> (pid_t, String?) {
        var fds: [Int32] = [0, 0]
        guard closeOnExecPipe(&fds) else { throw TmuxError(message: "pipe failed") }
        let child: pid_t
        do {
            child = try spawnProcess(command[0], Array(command.dropFirst()), environment: ProcessInfo.processInfo.environment) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
                posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                posix_spawn_file_actions_addclose(&actions, fds[0])
            }
        } catch {
            close(fds[0])
            close(fds[1])
            throw error
        }
        close(fds[1])
        defer { close(fds[0]) }
        // Blocking reads up to the first newline: the server writes it once it listens, or exits.
        blockingWaitAllowed("reading the first line of \(command.joined(separator: " "))")
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(fds[0], &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return (child, String(decoding: line, as: UTF8.self)) }
            line.append(byte)
        }
        return (child, nil)
    }

    /// The repository's `scripts/` file `name`.
    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/\(name)").path
    }

    /// The JSON object the server answers for `GET path` (such as "/v1/payment_intents/pi_…").
    func get(_ path: String) throws -> [String: Any] {
        try Self.get(path, port: port)
    }

    /// Every PaymentIntent the server holds.
    func paymentIntents() throws -> [[String: Any]] {
        (try get("/v1/payment_intents?limit=100")["data"] as? [[String: Any]]) ?? []
    }

    /// A plain HTTP/1.0 GET over a socket, so asking the server needs no HTTP library.
    static func get(_ path: String, port: Int) throws -> [String: Any] {
        let text = try exchange("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(secretKey)\r\n\r\n", port: port)
        guard let body = text.range(of: "\r\n\r\n").map({ text[$0.upperBound...] }),
            let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        else { throw TmuxError(message: "no JSON from GET \(path): \(text.prefix(300))") }
        return object
    }

    /// Sends `request` (a whole HTTP/1.0 request) to 127.0.0.1:`port` over a socket and returns the whole answer.
    static func exchange(_ request: String, port: Int) throws -> String {
        String(decoding: try exchangeBytes(request, port: port), as: UTF8.self)
    }

    /// The answer's bytes as they came, head and body: for bodies that are not text.
    static func exchangeBytes(_ request: String, port: Int) throws -> [UInt8] {
        let descriptor = try connectToLoopback(port: port)
        defer { close(descriptor) }
        _ = request.withCString { send(descriptor, $0, strlen($0), 0) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        return answer
    }
}

/// `scripts/stripe-fault-proxy` in front of a server: fails the requests its rules name.
final class StripeFaultProxy: @unchecked Sendable {
    private(set) var port = 0
    private var pid: pid_t = 0

    var base: String { "http://127.0.0.1:\(port)" }

    /// Rules are METHOD:PATH_REGEX:COUNT:before|after|vanish (see the script); `honoursIdempotencyKeys` makes it keep
    /// and replay answers by Idempotency-Key, as Stripe does and localstripe does not.
    init(upstream: String, rules: [String], honoursIdempotencyKeys: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        (pid, port) = try LocalStripe.startServer(
            [LocalStripe.script("stripe-fault-proxy")] + (honoursIdempotencyKeys ? ["--idempotency"] : []) + [upstream] + rules,
            errorFile: TemporaryDirectory.make().path + "-proxy.err", what: "the fault proxy (it needs aiohttp, installed with localstripe)",
            sourceLocation: sourceLocation
        )
    }

    deinit { LocalStripe.stopServer(pid) }

    /// Every request the proxy saw, as (method, path, status).
    func log() throws -> [String] {
        let requests = (try LocalStripe.get("/_proxy/log", port: port)["requests"] as? [[Any]]) ?? []
        return requests.map { $0.map { "\($0)" }.joined(separator: " ") }
    }
}

/// A TCP socket connected to 127.0.0.1:`port`; the caller closes it.
func connectToLoopback(port: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int32 {
    blockingWaitAllowed("a blocking socket to 127.0.0.1:\(port)", sourceLocation: sourceLocation)
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw TmuxError(message: "socket failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(descriptor)
        throw TmuxError(message: "cannot connect to 127.0.0.1:\(port)")
    }
    return descriptor
}

extension LocalStripe: LiveObject {}
extension StripeFaultProxy: LiveObject {}
