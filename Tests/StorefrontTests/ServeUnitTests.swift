import Crypto
import Foundation
import StoreSSH
import Testing

@Suite("Host key file")
struct HostKeyFileTests {
    private func scratch() throws -> String {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("host_key").path
    }

    @Test func isCreatedOnceWithMode0600AndReadBackTheSame() throws {
        let path = try scratch()
        let (created, isNew) = try HostKey.loadOrCreate(at: path)
        #expect(isNew)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let (loaded, isNewAgain) = try HostKey.loadOrCreate(at: path)
        #expect(!isNewAgain)
        #expect(loaded.fingerprint == created.fingerprint)
        #expect(loaded.privateKey.rawRepresentation == created.privateKey.rawRepresentation)
    }

    @Test func readsAKeyMadeBySshKeygenAndAgreesOnTheFingerprint() throws {
        let path = try scratch()
        let made = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path])
        try #require(made.status == 0)
        let key = try HostKey.load(from: path)
        #expect(key.fingerprint == (try ServeProcess.fingerprint(ofKey: path)))
    }

    @Test func refusesAKeyOthersCanReadAndLeavesItAlone() throws {
        let path = try scratch()
        _ = try HostKey.loadOrCreate(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        #expect(throws: HostKeyError.tooOpen(path: path, mode: 0o644)) { try HostKey.loadOrCreate(at: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func namesWhatIsWrongWithOtherKeys() throws {
        let encrypted = try scratch()
        _ = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "secret phrase", "-f", encrypted])
        #expect(throws: HostKeyError.encrypted(path: encrypted)) { try HostKey.load(from: encrypted) }

        let ecdsa = try scratch()
        _ = try Subprocess.run("/usr/bin/ssh-keygen", ["-q", "-t", "ecdsa", "-N", "", "-f", ecdsa])
        #expect(throws: HostKeyError.unsupportedType(path: ecdsa, type: "ecdsa-sha2-nistp256")) { try HostKey.load(from: ecdsa) }

        let pem = try scratch()
        try "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n".write(toFile: pem, atomically: true, encoding: .utf8)
        chmod(pem, 0o600)
        #expect(throws: HostKeyError.notOpenSSHKey(path: pem)) { try HostKey.load(from: pem) }

        let truncated = try scratch()
        let whole = HostKey(privateKey: Curve25519.Signing.PrivateKey()).openSSHPrivateKey
        let lines = whole.split(separator: "\n")
        try ([lines[0], lines[1], lines.last!].joined(separator: "\n")).write(toFile: truncated, atomically: true, encoding: .utf8)
        chmod(truncated, 0o600)
        #expect {
            try HostKey.load(from: truncated)
        } throws: { error in
            guard case .damaged = error as? HostKeyError else { return false }
            return "\(error)".contains("damaged")
        }
    }
}

@Suite("Admission control")
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

    @Test func limitsOpenSessionsAndGivesSlotsBack() {
        let admission = AdmissionControl(limits: ServeLimits(maxSessions: 2))
        #expect(admission.beginSession() == nil)
        #expect(admission.beginSession() == nil)
        #expect(admission.beginSession() == .full(limit: 2))
        admission.endSession()
        #expect(admission.openSessions == 1)
        #expect(admission.beginSession() == nil)
    }

    @Test func drainingRefusesEverythingNew() {
        let admission = AdmissionControl(limits: ServeLimits())
        admission.startDraining()
        #expect(admission.beginSession() == .draining)
        #expect(admission.admitConnection(from: "10.0.0.1", at: start) == .draining)
    }
}

@Suite("Serve durations")
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
