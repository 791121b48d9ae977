import ShopAPI
import ShopCommands
import ShopRecording
import ShopServices
import ShopSessions
import ShopWebFront
import Testing

/// What the commands refuse before they do anything: every number from the command line bounded before it is used,
/// every text that lands in a file or a shell checked, in the library the executable only calls.
@Suite("Command rules")
struct CommandRulesTests {
    @Test func aRecordingsPaceIsBoundedBeforeItIsScaled() {
        #expect(CastRecording.pace(parsing: "400ms") == .milliseconds(400))
        #expect(CastRecording.pace(parsing: "2s") == .seconds(2))
        // The executable multiplied first: 99999999999999999 s trapped on overflow instead of being refused.
        for bad in ["99999999999999999s", "9223372036854775807ms", "5ms", "61s", "-1s", "1m", "", "s", "ms"] {
            #expect(CastRecording.pace(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func theMailWorkersNumbersAreBoundedBeforeTheyBecomeSeconds() {
        #expect(MailCommands.workerProblem(interval: 10, retryAfter: 30, giveUpAfter: 72) == nil)
        // `--give-up-after` was multiplied by 3,600 unchecked: Int.max hours trapped the worker.
        #expect(MailCommands.workerProblem(interval: 10, retryAfter: 30, giveUpAfter: .max) != nil)
        #expect(MailCommands.workerProblem(interval: .max, retryAfter: 30, giveUpAfter: 72) != nil)
        #expect(MailCommands.workerProblem(interval: 0, retryAfter: 30, giveUpAfter: 72) != nil)
        #expect(MailCommands.workerProblem(interval: 10, retryAfter: 3_601, giveUpAfter: 72) != nil)
    }

    @Test func aRefundNamesWhatItGivesBackInLinesThatParse() {
        #expect(OrderCommands.refundProblem(amount: "12.50", lines: [], restock: false, reason: "damaged") == nil)
        #expect(OrderCommands.refundProblem(amount: nil, lines: ["hoodie-root:2", "mug"], restock: true, reason: "returned") == nil)
        #expect(OrderCommands.refundProblem(amount: nil, lines: [], restock: false, reason: "x")?.hasPrefix("say what to refund") == true)
        #expect(OrderCommands.refundProblem(amount: "12.50", lines: [], restock: true, reason: "x")?.hasPrefix("--restock") == true)
        #expect(OrderCommands.refundProblem(amount: "twelve", lines: [], restock: false, reason: "x")?.hasPrefix("--amount") == true)
        #expect(OrderCommands.refundProblem(amount: "1", lines: [], restock: false, reason: "two\nlines")?.hasPrefix("--reason") == true)
        for bad in ["mug:0", "mug:100", "mug:9223372036854775807", ":1", "mug:1:2", "mug:x"] {
            #expect(OrderCommands.parseRefundLine(bad) == nil, "\(bad)")
        }
        #expect(OrderCommands.parseRefundLine("mug:3")?.1 == 3)
    }

    @Test func listsTakeCustomerIDsAndAPositiveLimit() {
        #expect(OrderCommands.listProblem(customer: "local:ana", limit: 10) == nil)
        #expect(OrderCommands.listProblem(customer: nil, limit: 0) == "--limit must be at least 1")
        for bad in ["ana", "local:", "local:a b", "ssh:notafingerprint", "local:\u{1B}]0;x\u{07}"] {
            #expect(OrderCommands.listProblem(customer: bad, limit: 10) != nil, "\(bad)")
        }
    }

    @Test func aTokensScopeAndAdminKeysGoTogether() {
        let customer = "sandbox-id:ana"
        #expect(TokenCommands.problem(name: "ci", customer: customer, scope: "shop", adminKeys: nil) == nil)
        #expect(TokenCommands.problem(name: "ci", customer: customer, scope: "owner", adminKeys: nil)?.hasPrefix("--scope") == true)
        #expect(TokenCommands.problem(name: "ci", customer: customer, scope: "merchant", adminKeys: nil)?.contains("--admin-keys") == true)
        #expect(TokenCommands.problem(name: "ci", customer: customer, scope: "shop", adminKeys: "keys")?.contains("merchant tokens") == true)
        #expect(TokenCommands.problem(name: "", customer: customer, scope: "shop", adminKeys: nil)?.hasPrefix("--name") == true)
    }

    @Test func sshdSetupRefusesWhatWouldInjectDirectives() {
        func problem(binary: String? = nil, run: [String] = [], guest: String? = nil) -> String? {
            OpenSSHSession.setupProblem(user: "shop", guestUser: guest, maxGuests: 16, guestsPerAddress: 2, binary: binary, runArguments: run)
        }
        #expect(problem(binary: "/usr/local/bin/storefront", run: ["--payments", "stripe"], guest: "guest") == nil)
        for binary in ["storefront", "/bin/x\nPermitRootLogin yes", "/bin/x;id", "/bin/x(1)", "/bin/a b"] {
            #expect(problem(binary: binary) != nil, "\(binary.debugDescription)")
        }
        #expect(problem(run: ["--data-dir", "/srv/shop;rm"]) != nil)
        #expect(problem(guest: "shop") != nil)
        #expect(OpenSSHSession.frontProblem("ssh shop@shop.example") == nil)
        #expect(OpenSSHSession.frontProblem("ssh \u{1B}[2J") != nil)
    }

    @Test func eachFrontsNumbersAreBoundedWhereItsSettingsAre() {
        var ssh = SSHShopSettings(host: "127.0.0.1", port: 2222, hostKeyPath: "/k", limits: ServeLimits())
        #expect(ssh.problem == nil)
        ssh.port = 65_536
        #expect(ssh.problem?.hasPrefix("--port") == true)
        ssh.port = 0
        ssh.limits.maxGuests = -1
        #expect(ssh.problem?.hasPrefix("--max-guests") == true)

        var web = WebFrontSettings(host: "127.0.0.1", port: 8080, shopName: "Shop")
        #expect(web.problem == nil)
        web.limits.connectionsPerAddress = 0
        #expect(web.problem?.hasPrefix("--connections-per-address") == true)
        web = WebFrontSettings(host: "0.0.0.0", port: 8080, shopName: "Shop")
        #expect(web.problem?.hasPrefix("--public-origin") == true)

        var limits = APILimits()
        limits.maxBodyBytes = 100
        let api = APIServiceSettings(
            listen: ListenAddress(host: "127.0.0.1", port: 0), limits: limits, bankCheckWindow: .seconds(900), adminKeysFile: nil,
            sandboxLatency: .zero)
        #expect(api.problem?.hasPrefix("--max-body") == true)
    }
}
