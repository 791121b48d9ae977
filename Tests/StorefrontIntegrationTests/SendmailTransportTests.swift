import Foundation
import ShopMail
import ShopModels
import ShopPorts
import Testing

/// The mail command as a careless or broken one behaves: it hangs, floods its standard error, or closes its input
/// early. Each try ends, bounded, as a failure the outbox records; none holds or kills the shop.
@Suite("The mail command's failures", .ownThreads)
struct SendmailTransportTests {
    static func message(bodyBytes: Int = 100) -> MailMessage {
        MailMessage(
            from: MailAddress(name: "Storefront", address: "shop@example.com"), to: MailAddress(address: "ada@example.com"),
            subject: "Your order", date: Date(timeIntervalSince1970: 1_795_339_800), messageID: "<m1@example.com>",
            text: String(repeating: "a line of the receipt\n", count: max(1, bodyBytes / 22))
        )
    }

    /// Sends with `script` as the mail command under `sh -c`; returns the failure and the command's pid file's pid.
    func send(_ script: String, deadline: Duration = .seconds(30), bodyBytes: Int = 100) async -> MailTransportError? {
        do {
            try await SendmailTransport(command: ["/bin/sh", "-c", script], deadline: deadline).send(Self.message(bodyBytes: bodyBytes))
            return nil
        } catch {
            return error
        }
    }

    @Test func aCommandThatHangsIsKilledAtTheDeadline() async throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString).pid").path
        let failure = await send("echo $$ > \(pidFile); exec sleep 600", deadline: .milliseconds(300))
        #expect(failure?.description.contains("was killed: it did not finish within 0.3 seconds") == true, "\(String(describing: failure))")
        let pid = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the command is gone")
    }

    @Test func aCancelledSendKillsItsCommandAtOnce() async throws {
        let sending = Task { await send("exec sleep 600", deadline: .seconds(600)) }
        sending.cancel()
        let failure = await sending.value
        #expect(failure?.description.contains("the shop stopped while it ran") == true, "\(String(describing: failure))")
    }

    @Test func fiftyMegabytesOnStandardErrorKeepOnlyATail() async {
        let failure = await send("head -c 50000000 /dev/zero | tr '\\000' x >&2; echo >&2; echo 'msmtp: server said no' >&2; exit 75")
        let text = failure?.description ?? ""
        #expect(text.hasSuffix("exited with 75: msmtp: server said no"), "\(text.prefix(200))")
        #expect(text.count < 500, "a bounded line, not the flood: \(text.count) characters")
    }

    @Test func aCommandThatClosesItsInputEarlyFailsTheTryWithoutASIGPIPE() async {
        let failure = await send("exec 0<&-; echo 'no input wanted' >&2; exit 1", bodyBytes: 1 << 20)
        #expect(failure?.description.contains("exited with 1: no input wanted") == true, "\(String(describing: failure))")
        // Still here: the write's SIGPIPE was taken on the writer's thread.
        let good = await send("cat > /dev/null")
        #expect(good == nil)
    }
}
