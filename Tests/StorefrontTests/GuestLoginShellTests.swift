import ShopSSH
import Testing

/// The guest account's login shell: sshd's forced command runs, nothing else a local user could ask of it does.
@Suite("The guest account's login shell")
struct GuestLoginShellTests {
    static let binary = "/usr/local/bin/storefront"

    @Test func sshdsForcedCommandRunsAsTheSession() {
        let decision = GuestLoginShell.decide(
            argv0: "storefront",
            arguments: ["-c", "\(Self.binary) sshd-session --guest --max-guests 16 --guests-per-address 2 --data-dir /var/lib/storefront"],
            executable: Self.binary, isSomeonesShell: { true }
        )
        #expect(
            decision == .run(["sshd-session", "--guest", "--max-guests", "16", "--guests-per-address", "2", "--data-dir", "/var/lib/storefront"]))
    }

    @Test(arguments: [
        ["-c", "id"], ["-c", "cat /var/lib/storefront/storefront.sqlite"], ["-c", "/bin/sh"], ["-c", "\(binary) run"],
        ["-c", "\(binary) sshd-session; /bin/sh"].map { $0 }, ["-c", "/tmp/storefront sshd-session"], ["-c"], ["-c", "\(binary) sshd-session", "x"],
    ])
    func anyOtherCommandIsRefused(_ arguments: [String]) {
        let decision = GuestLoginShell.decide(argv0: "storefront", arguments: arguments, executable: Self.binary, isSomeonesShell: { true })
        guard case .refused(let why) = decision else {
            Issue.record("\(arguments) was not refused: \(decision)")
            return
        }
        #expect(why.contains("only opens the shop's guest sessions"))
    }

    @Test func aLoginShellOrABareCallOfTheAccountIsRefusedAndEveryoneElseRunsAsUsual() {
        #expect(GuestLoginShell.decide(argv0: "-storefront", arguments: [], executable: Self.binary, isSomeonesShell: { false }) != .notAShell)
        #expect(GuestLoginShell.decide(argv0: "storefront", arguments: [], executable: Self.binary, isSomeonesShell: { true }) != .notAShell)
        #expect(GuestLoginShell.decide(argv0: "storefront", arguments: [], executable: Self.binary, isSomeonesShell: { false }) == .notAShell)
        #expect(
            GuestLoginShell.decide(
                argv0: "storefront", arguments: ["run"], executable: Self.binary,
                isSomeonesShell: {
                    Issue.record("not asked")
                    return true
                }) == .notAShell)
    }
}
