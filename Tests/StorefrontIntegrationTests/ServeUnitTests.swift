import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PseudoTerminal
import ShopSSH
import ShopSessions
import StorefrontTesting
import SystemPackage
import Testing

@Suite("Host key file", .ownThreads)
struct HostKeyFileTests {
    private func scratch() throws -> String {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("host_key").path
    }

    @Test func isCreatedOnceWithMode0600AndReadBackTheSame() throws {
        let path = try scratch()
        let (created, isNew) = try HostKey.loadOrCreate(at: FilePath(path))
        #expect(isNew)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let (loaded, isNewAgain) = try HostKey.loadOrCreate(at: FilePath(path))
        #expect(!isNewAgain)
        #expect(loaded.fingerprint == created.fingerprint)
        #expect(loaded.privateKey.rawRepresentation == created.privateKey.rawRepresentation)
    }

    @Test func readsAKeyMadeBySshKeygenAndAgreesOnTheFingerprint() throws {
        let path = try scratch()
        let made = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path])
        try #require(made.status == 0)
        let key = try HostKey.load(from: FilePath(path))
        #expect(key.fingerprint == (try ServeProcess.fingerprint(ofKey: path)))
    }

    @Test func refusesAKeyOthersCanReadAndLeavesItAlone() throws {
        let path = try scratch()
        _ = try HostKey.loadOrCreate(at: FilePath(path))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        #expect(throws: HostKeyError.tooOpen(path: FilePath(path), mode: 0o644)) { try HostKey.loadOrCreate(at: FilePath(path)) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(arguments: [0o620, 0o602, 0o610, 0o640])
    func refusesAKeyOthersCanWriteOrRead(mode: Int) throws {
        let path = try scratch()
        _ = try HostKey.loadOrCreate(at: FilePath(path))
        chmod(path, mode_t(mode))
        #expect(throws: HostKeyError.tooOpen(path: FilePath(path), mode: mode)) { try HostKey.loadOrCreate(at: FilePath(path)) }
    }

    @Test func refusesAKeyThatIsASymbolicLink() throws {
        let target = try scratch()
        _ = try HostKey.loadOrCreate(at: FilePath(target))
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        let link = try scratch()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: HostKeyError.self) { try HostKey.loadOrCreate(at: FilePath(link)) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == before)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    }

    @Test func namesWhatIsWrongWithOtherKeys() throws {
        let encrypted = try scratch()
        _ = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "secret phrase", "-f", encrypted])
        #expect(throws: HostKeyError.encrypted(path: FilePath(encrypted))) { try HostKey.load(from: FilePath(encrypted)) }

        let ecdsa = try scratch()
        _ = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ecdsa", "-N", "", "-f", ecdsa])
        #expect(throws: HostKeyError.unsupportedType(path: FilePath(ecdsa), type: "ecdsa-sha2-nistp256")) { try HostKey.load(from: FilePath(ecdsa)) }

        let pem = try scratch()
        try "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n".write(toFile: pem, atomically: true, encoding: .utf8)
        chmod(pem, 0o600)
        #expect(throws: HostKeyError.notOpenSSHKey(path: FilePath(pem))) { try HostKey.load(from: FilePath(pem)) }

        let truncated = try scratch()
        let whole = HostKey(privateKey: Curve25519.Signing.PrivateKey()).openSSHPrivateKey
        let lines = whole.split(separator: "\n")
        try ([lines[0], lines[1], lines.last!].joined(separator: "\n")).write(toFile: truncated, atomically: true, encoding: .utf8)
        chmod(truncated, 0o600)
        #expect {
            try HostKey.load(from: FilePath(truncated))
        } throws: { error in
            guard case .damaged = error as? HostKeyError else { return false }
            return "\(error)".contains("damaged")
        }
    }
}

@Suite("Admission control", .ownThreads)
struct AdmissionControlTests {
    let start = ContinuousClock.now

    @Test func limitsConnectionsPerSourceOverAnyMinute() {
        let admission = AdmissionControl(limits: ServeLimits(connectionsPerSourcePerMinute: 3))
        for second in [0, 10, 20] {
            #expect(admission.admitConnection(from: "10.0.0.1", at: start + .seconds(second)) == nil)
        }
        #expect(admission.admitConnection(from: "10.0.0.1", at: start + .seconds(30)) == .tooManyConnections(source: "10.0.0.1", limit: 3))
        #expect(admission.admitConnection(from: "10.0.0.2", at: start + .seconds(30)) == nil, "another address has its own allowance")
        // The first connection leaves the window 60 s after it was made.
        #expect(admission.admitConnection(from: "10.0.0.1", at: start + .seconds(59)) != nil)
        #expect(admission.admitConnection(from: "10.0.0.1", at: start + .seconds(60)) == nil)
    }

    @Test func forgetsQuietSourcesOnceAMinute() {
        let admission = AdmissionControl(limits: ServeLimits(connectionsPerSourcePerMinute: 3))
        for index in 0..<100 {
            #expect(admission.admitConnection(from: "10.0.1.\(index)", at: start + .milliseconds(index)) == nil)
        }
        #expect(admission.trackedSources == 100)
        #expect(admission.admitConnection(from: "10.0.2.1", at: start + .seconds(61)) == nil)
        #expect(admission.trackedSources == 1, "the sweep a minute later kept only the newcomer")
    }

    @Test func limitsOpenSessionsAndGivesSlotsBack() {
        let admission = AdmissionControl(limits: ServeLimits(maxSessions: 2))
        #expect(admission.beginSession() == nil)
        #expect(admission.beginSession() == nil)
        #expect(admission.beginSession() == .full(limit: 2))
        admission.endSession()
        #expect(admission.openSessions == 1)
        #expect(admission.beginSession() == nil)
    }

    @Test func guestsAreCountedApartPerAddressAndInAll() {
        let admission = AdmissionControl(limits: ServeLimits(maxSessions: 1, maxGuests: 3, guestsPerAddress: 2))
        #expect(admission.beginGuestSession(from: "10.0.0.1") == nil)
        #expect(admission.beginGuestSession(from: "10.0.0.1") == nil)
        #expect(admission.beginGuestSession(from: "10.0.0.1") == .tooManyGuests(source: "10.0.0.1", limit: 2))
        #expect(admission.beginGuestSession(from: "10.0.0.2") == nil)
        #expect(admission.beginGuestSession(from: "10.0.0.3") == .guestsFull(limit: 3))
        #expect(admission.beginSession() == nil, "a key holder's slot is not a guest's")
        #expect(admission.openGuestSessions == 3 && admission.openSessions == 1)
        admission.endGuestSession(from: "10.0.0.1")
        #expect(admission.beginGuestSession(from: "10.0.0.3") == nil, "a slot given back is free again")
        #expect(AdmissionControl(limits: ServeLimits(maxGuests: 0)).beginGuestSession(from: "10.0.0.1") == .noGuests)
    }

    @Test func drainingRefusesEverythingNew() {
        let admission = AdmissionControl(limits: ServeLimits())
        admission.startDraining()
        #expect(admission.beginGuestSession(from: "10.0.0.1") == .draining)
        #expect(admission.beginSession() == .draining)
        #expect(admission.admitConnection(from: "10.0.0.1", at: start) == .draining)
    }
}

@Suite("Serve durations", .ownThreads)
struct ServeDurationTests {
    @Test(arguments: [("90s", 90), ("15m", 900), ("2h", 7200), ("45", 45)])
    func parses(text: String, seconds: Int64) {
        #expect(ServeDuration.parse(text) == .seconds(seconds))
    }

    @Test(arguments: ["", "m", "0s", "-5m", "1.5m", "15 m", "9999h", "٣m"])
    func rejects(text: String) {
        #expect(ServeDuration.parse(text) == nil)
    }

    @Test func describesTheShortestExactForm() {
        #expect(ServeDuration.describe(.seconds(900)) == "15m")
        #expect(ServeDuration.describe(.seconds(90)) == "90s")
        #expect(ServeDuration.describe(.seconds(7200)) == "2h")
    }
}

@Suite("A program on a fresh pty", .ownThreads)
struct PseudoTerminalProcessTests {
    @Test func runsAsASessionLeaderWithTheSizeAndNoSuspendCharacter() throws {
        let script =
            #"stty size; stty -a | tr ';' '\n' | grep -o 'susp = .*'; [ "$(cut -d' ' -f6 /proc/$$/stat)" = "$$" ] && echo leader; tty; echo "TERM=$TERM""#
        let process = try PseudoTerminalProcess.spawn(
            executable: "/bin/sh", arguments: ["-c", script], environment: ["TERM": "xterm-256color", "PATH": "/usr/bin:/bin"],
            size: TerminalSize(columns: 33, rows: 7)
        )
        let text = process.readAllOutput()
        #expect(process.waitForExit() == .exited(0))
        #expect(text.contains("7 33"), "the size from the request: \(text)")
        #expect(text.contains("susp = <undef>"), "Ctrl-Z suspends nothing: \(text)")
        #expect(text.contains("leader"), "a session of its own: \(text)")
        #expect(text.contains("/dev/pts/"), "the pty is its controlling terminal: \(text)")
        #expect(text.contains("TERM=xterm-256color"))
    }

    @Test func resizeReachesTheProgramAndSignalsEndIt() throws {
        let process = try PseudoTerminalProcess.spawn(
            executable: "/bin/sh", arguments: ["-c", "read line; stty size; exec sleep 30"], environment: ["PATH": "/usr/bin:/bin"],
            size: TerminalSize(columns: 80, rows: 24)
        )
        try process.resize(to: TerminalSize(columns: 120, rows: 40))
        let terminal = process.takeTerminal()
        defer { close(terminal) }
        _ = "go\n".withCString { write(terminal, $0, 3) }
        var seen = ""
        var buffer = [UInt8](repeating: 0, count: 256)
        while !seen.contains("40 120") {
            let count = read(terminal, &buffer, buffer.count)
            guard count > 0 else { break }
            seen += String(decoding: buffer.prefix(count), as: UTF8.self)
        }
        #expect(seen.contains("40 120"), "after the resize: \(seen)")
        #expect(process.signal(SIGHUP))
        #expect(process.waitForExit() == .signalled(SIGHUP))
        #expect(!process.signal(0), "reaped: no such process any more")
        #expect(ProcessTermination.signalled(SIGSEGV).description == "SIGSEGV")
        #expect(ProcessTermination.signalled(SIGSEGV).shellStatus == 139)
    }
}

@Suite("Terminal types over SSH", .ownThreads)
struct TerminalTypesTests {
    let types = TerminalTypes(directories: ["/home/s/.terminfo", "/usr/share/terminfo"]) { path in
        [
            "/usr/share/terminfo/x/xterm-256color", "/usr/share/terminfo/x/xterm", "/usr/share/terminfo/v/vt100",
            "/home/s/.terminfo/78/xterm-ghostty",
        ].contains(path)
    }

    @Test func keepsATypeTheHostKnowsInEitherLayout() {
        #expect(types.resolve("xterm-256color") == ("xterm-256color", false))
        #expect(types.resolve("xterm-ghostty") == ("xterm-ghostty", false), "the hex layout (78 = 'x') counts too")
    }

    @Test func substitutesXterm256ForOnesItDoesNot() {
        #expect(types.resolve("xterm-kitty") == ("xterm-256color", true))
        #expect(types.resolve("alacritty") == ("xterm-256color", true))
        #expect(types.resolve("") == ("xterm-256color", true))
        #expect(types.resolve("../../etc/passwd") == ("xterm-256color", true), "a TERM is a name, never a path")
    }

    @Test func fallsBackToThePlainestTypeTheHostHas() {
        let bare = TerminalTypes(directories: ["/lib/terminfo"]) { $0 == "/lib/terminfo/v/vt100" }
        #expect(bare.resolve("xterm-kitty") == ("vt100", true))
    }
}

@Suite("What a client can put in the log", .ownThreads)
struct LogFloodGuardTests {
    @Test func aClientChosenStringIsLoggedAsAShortEscapedPrefixAndItsLength() {
        #expect(clientChosen("sftp") == #""sftp""#)
        #expect(clientChosen("a\u{1B}]0;x\u{07}") == #""a\u{1B}]0;x\u{07}""#)
        let long = String(repeating: "é", count: 60_000)
        #expect(clientChosen(long) == "\"" + String(repeating: "é", count: 40) + "\"… (120000 bytes)")
    }

    @Test func eachKindOfRefusalIsLoggedAtMostBurstTimesAWindowThenCounted() {
        let now = NIOLockedValueBox(NIODeadline.uptimeNanoseconds(0))
        let lines = NIOLockedValueBox<[String]>([])
        let throttle = RefusalLogThrottle(burst: 3, window: .seconds(60), now: { now.withLockedValue { $0 } }) { line in
            lines.withLockedValue { $0.append(line) }
        }
        for index in 1...10 { throttle.log("refused exec", "exec \(index)") }
        throttle.log("refused subsystem", "subsystem 1")
        #expect(lines.withLockedValue { $0 } == ["exec 1", "exec 2", "exec 3", "subsystem 1"], "a kind's burst does not silence another kind")
        now.withLockedValue { $0 = $0 + .seconds(59) }
        throttle.log("refused exec", "exec 11")
        #expect(lines.withLockedValue { $0.count } == 4, "still inside the window")
        now.withLockedValue { $0 = $0 + .seconds(1) }
        throttle.log("refused exec", "exec 12")
        #expect(lines.withLockedValue { $0.suffix(2) } == [#"8 more "refused exec" lines were left out of the log"#, "exec 12"])
    }
}
