import Foundation
import LiveObjects
import StorefrontTesting
import Testing

/// The system's OpenSSH server (Debian's openssh-server) on a free loopback port, set up with the block
/// `storefront sshd-config` prints for the current user, with its own host key and the shop's data directory; the
/// tests run as root (CI does), since sshd insists on a root-owned `AuthorizedKeysCommand`. Its log
/// arrives on a pipe (`-D -e`); waiting for a line is `poll(2)` with a deadline. Stopped when released.
final class OpenSSHServer {
    static let sshd = "/usr/sbin/sshd"

    let directory: URL
    /// The root-owned directory the binary sshd runs was copied to.
    private let binaryDirectory: String
    let port: Int
    let user: String
    private let pid: pid_t
    private let logReader: Int32
    private(set) var log = ""

    var dataDirectory: String { directory.appendingPathComponent("data").path }
    var hostKeyPath: String { directory.appendingPathComponent("host_ed25519").path }

    /// `setupOptions` go to `sshd-config` before its run options (`--join PATH`).
    init(setupOptions: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.sshd) else {
            Issue.record("OpenSSH's server is missing: install Debian's package openssh-server", sourceLocation: sourceLocation)
            throw TmuxError(message: "no sshd")
        }
        // sshd runs an AuthorizedKeysCommand only from a path root owns at every step, none writable by others (so
        // never from under /tmp): the binary is copied to a directory of its own under /run, which takes root.
        guard getuid() == 0 else {
            Issue.record(
                "the OpenSSH front's tests need root: sshd runs an AuthorizedKeysCommand only from a root-owned path", sourceLocation: sourceLocation)
            throw TmuxError(message: "not root")
        }
        let safe = "/run/storefront-sshd-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: safe, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        binaryDirectory = safe
        let binary = safe + "/storefront"
        // cp, not an open descriptor of this process: a child another test forks meanwhile would inherit one, and the
        // copy could not be run while it is open for writing ("Text file busy").
        // The joiner `sshd-session --join` becomes is found beside the binary, as installed.
        let built = try BuiltProduct.requireStorefront()
        let joiner = URL(fileURLWithPath: built).deletingLastPathComponent().appendingPathComponent("storefront-joiner").path
        let copied = try Subprocess.run("/bin/cp", [built, joiner, safe + "/"])
        guard copied.status == 0 else {
            try? FileManager.default.removeItem(atPath: safe)
            Issue.record("cannot copy the binary to \(safe): \(copied.stderr)", sourceLocation: sourceLocation)
            throw TmuxError(message: "cannot copy the binary")
        }
        directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let made = try Subprocess.run(
            "/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", directory.appendingPathComponent("host_ed25519").path])
        try #require(made.status == 0, "ssh-keygen failed: \(made.stderr)")
        // sshd run by root wants its privilege separation directory; run by anyone else it needs none.
        if getuid() == 0 {
            try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        port = try Self.freePort()
        // The guests' block too: sshd checks it, though no test logs in as a guest through it (that needs an account
        // with an empty password on the host).
        let snippet = try Subprocess.run(
            binary,
            [
                "sshd-config", "--user", user, "--binary", binary, "--guest-user", "storefront-guest-test",
            ] + setupOptions + ["--", "--data-dir", directory.appendingPathComponent("data").path])
        try #require(snippet.status == 0, "sshd-config failed: \(snippet.stderr)")
        let config = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(directory.appendingPathComponent("host_ed25519").path)
            PidFile \(directory.appendingPathComponent("sshd.pid").path)
            UsePAM no
            StrictModes no
            PermitRootLogin \(getuid() == 0 ? "yes" : "no")
            LogLevel VERBOSE
            Subsystem sftp internal-sftp

            """ + snippet.stdout
        let configPath = directory.appendingPathComponent("sshd_config").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let checked = try Subprocess.run(Self.sshd, ["-t", "-f", configPath])
        try #require(checked.status == 0, "sshd refused the configuration: \(checked.stderr)\n\(config)")

        var fds: [Int32] = [0, 0]
        guard closeOnExecPipe(&fds) else { throw TmuxError(message: "pipe failed") }
        logReader = fds[0]
        let child: pid_t
        do {
            child = try spawnProcess(Self.sshd, ["-D", "-e", "-f", configPath], environment: ["PATH": "/usr/bin:/bin"]) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
                posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
                posix_spawn_file_actions_addclose(&actions, fds[0])
            }
        } catch {
            close(fds[0])
            close(fds[1])
            throw error
        }
        close(fds[1])
        pid = child
        try waitForLog(#/Server listening on 127\.0\.0\.1 port/#)
    }

    deinit {
        killAndReap(pid, signal: SIGTERM)
        close(logReader)
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(atPath: binaryDirectory)
    }

    /// A port nobody listens on now: bound to 0 and released.
    static func freePort() throws -> Int {
        let (descriptor, port) = try boundLoopbackSocket(listening: false)
        close(descriptor)
        return port
    }

    /// A TCP socket bound to a free loopback port (and listening, when asked), and its port; the caller closes it.
    static func boundLoopbackSocket(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && (!listening || listen(descriptor, 8) == 0) && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TmuxError(message: "no free port")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A new client key of `type` (`ed25519`, `rsa`, `ecdsa`) in the test's directory; returns its path.
    func makeClientKey(_ name: String, type: String = "ed25519") throws -> String {
        let path = directory.appendingPathComponent(name).path
        let size = type == "rsa" ? ["-b", "3072"] : []
        let made = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", type] + size + ["-N", "", "-C", name, "-f", path])
        try #require(made.status == 0, "ssh-keygen failed: \(made.stderr)")
        return path
    }

    /// The OpenSSH client's arguments for this server as the current user, with a private known_hosts.
    func sshArguments(key: String, allocateTerminal: Bool = true) -> [String] {
        (allocateTerminal ? ["-tt"] : ["-T"]) + [
            "-p", "\(port)", "-i", key, "-F", "/dev/null", "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
            "-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile=\(directory.appendingPathComponent("known_hosts").path)",
            "\(user)@127.0.0.1",
        ]
    }

    /// The ssh command line for a shell in tmux.
    func sshCommand(key: String) -> String {
        "ssh " + sshArguments(key: key).map { "'\($0)'" }.joined(separator: " ")
    }

    /// Reads the log until `pattern` matches a line, or the deadline passes.
    @discardableResult
    func waitForLog<Output>(_ pattern: Regex<Output>, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) throws
        -> Regex<Output>.Match
    {
        if let match = readLog(&log, from: logReader, until: pattern, timeout: timeout) { return match }
        Issue.record("sshd never logged \(pattern); its log was:\n\(log)", sourceLocation: sourceLocation)
        throw TmuxError(message: "timed out waiting for sshd")
    }
}

extension OpenSSHServer: LiveObject {}
