import Foundation
import StorefrontTesting
import Testing

/// A sign-out anywhere reaches every open tab and every token made in one, on SQLite and on PostgreSQL, with two `web`
/// hosts on one database: a real Chromium with two tabs (one on each host), an SSH session of the same account, and the
/// API. A tab signed out by the page's button, by the other tab, by "sign out everywhere" over SSH, or merged into
/// another account is closed with the reason on its page; its shop process ends with it.
@Suite("A sign-out reaches every open tab and token", .serialized, .ownThreads)
struct SignOutReachesOpenTabsTests {
    let root = TemporaryDirectory.make().path

    @Test(arguments: APIEndToEndTests.Database.allCases)
    func aSignOutAnywhereEndsEveryOpenTabAndTheTokensMadeInIt(_ database: APIEndToEndTests.Database) async throws {
        var (environment, postgres) = try await database.shop()
        defer { withExtendedLifetime(postgres) {} }
        environment["STOREFRONT_CODE_KEY"] = Data(repeating: 42, count: 32).base64EncodedString()
        let world = try SignInWorld(in: root)
        defer { world.stop() }
        let shop = try ServeProcess(arguments: ["--mail-command", world.mail], environment: environment)
        // Two hosts of one database: a sign-out on one must reach a tab on the other.
        let hosts = try (0..<2).map { _ in
            try ServeProcess(
                arguments: ["--mail-command", world.mail], environment: environment, command: ["web", "--listen", "127.0.0.1:0"],
                dataDirectory: shop.dataDirectory)
        }
        let api = try ServeProcess(environment: environment, command: ["api", "--listen", "127.0.0.1:0"], dataDirectory: shop.dataDirectory)
        let key = try shop.makeClientKey("laptop")
        let account = "ssh:" + (try ServeProcess.fingerprint(ofKey: key))
        let escapedAccount = NSRegularExpression.escapedPattern(for: account)

        // The SSH key proves the email: one account over SSH and in the browser.
        let ssh = try TmuxTerminal()
        try shop.connect(ssh, key: key)
        try OnePersonJourneyTests.join(ssh, world: world, message: 0)

        // Tab 0 signs in on host 0 by the emailed code; tab 1 opens host 1's page with the same cookie.
        let browser = try Browser()
        let pages = hosts.map { "http://127.0.0.1:\($0.port)/" }
        var opened = [0, 0]
        // A tab holds its session once the session is open and, for one started with its page, the page's socket came.
        func waitForTab(_ host: Int, of who: String) throws {
            opened[host] += 1
            let open = try hosts[host].waitForLog(Regex("web session \(opened[host]) open: \(who)[^\n]*"))
            if open.output[0].substring?.contains("started with its page") == true {
                try hosts[host].waitForLog(Regex("web session \(opened[host]): its page's socket came"))
            }
        }
        func signIn(_ email: String, message: Int) throws {
            try browser.must(["op": "switch_tab", "index": 0])
            try browser.must(["op": "open", "url": pages[0]])
            try browser.waitFor("Sign in above the shop")
            opened[0] += 1
            try browser.must(["op": "click", "selector": "#account a"])
            try browser.must(["op": "fill", "selector": "input[name=email]", "text": email])
            try browser.must(["op": "click", "selector": "button[type=submit]"])
            try browser.must(["op": "waitPage", "text": "If that email can get codes"])
            try browser.must(["op": "fill", "selector": "input[name=code]", "text": try world.code(message)])
            try browser.must(["op": "click", "selector": "button[type=submit]"])
            try browser.must(["op": "waitPage", "text": "Signed in as \(email)"])
        }
        try signIn("ada@example.com", message: 1)
        try waitForTab(0, of: "browser account \(escapedAccount)")
        try browser.must(["op": "new_tab"])
        try browser.must(["op": "open", "url": pages[1]])
        try waitForTab(1, of: "browser account \(escapedAccount)")

        // Tab 1 makes two tokens: one that ends with this sign-in (the default), one made lasting.
        func makeToken(_ name: String, lasting: Bool, after earlier: [String]) throws -> String {
            try browser.press("t")
            try browser.waitFor("Lasts")
            try browser.press(name, "TAB")
            if lasting { try browser.press(" ") }
            try browser.waitFor(lasting ? "until revoked" : "until this browser signs out")
            try browser.press("ENTER")
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let screen = try browser.waitFor("sfp_")
                if let secret = screen.firstMatch(of: /sfp_[0-9A-Za-z]{43}/).map({ String($0.output) }), !earlier.contains(secret) { return secret }
            }
            throw TmuxError(message: "no new token on the screen")
        }
        try browser.press("u")
        try browser.waitFor("Your account")
        let ending = try makeToken("tab script", lasting: false, after: [])
        let lasting = try makeToken("cron job", lasting: true, after: [ending])
        let http = HTTPClient(port: api.port)
        for token in [ending, lasting] { #expect(try await http.send("GET", "/v1/profile", token: token).status == 200) }

        // 1. The page's own sign-out in tab 0 ends tab 1 on the other host, and the token made there; not the lasting one.
        try browser.must(["op": "switch_tab", "index": 0])
        try browser.must(["op": "click", "selector": "#account button"])
        try browser.must(["op": "waitPage", "text": "Sign in above the shop"])
        opened[0] += 1
        try browser.must(["op": "switch_tab", "index": 1])
        try browser.waitFor("You were signed out", timeout: 10)
        try hosts[1].waitForLog(#/web session 1 closed: signed out/#)
        let refused = try await http.send("GET", "/v1/profile", token: ending)
        #expect(refused.status == 401 && "\(refused.json)".contains("ended with the browser sign-in"), "\(refused.json)")
        #expect(try await http.send("GET", "/v1/profile", token: lasting).status == 200)

        // 2. Signed in again in both tabs; "sign out everywhere" over SSH ends both, and every token.
        try signIn("ada@example.com", message: 2)
        try waitForTab(0, of: "browser account \(escapedAccount)")
        try browser.must(["op": "switch_tab", "index": 1])
        try browser.must(["op": "click_reconnect"])
        try waitForTab(1, of: "browser account \(escapedAccount)")
        try ssh.press("e")
        try ssh.waitFor("Signed out everywhere")
        for tab in [0, 1] {
            try browser.must(["op": "switch_tab", "index": tab])
            try browser.waitFor("You were signed out", timeout: 10)
        }
        try hosts[0].waitForLog(Regex("web session \(opened[0]) closed: signed out"))
        try hosts[1].waitForLog(Regex("web session \(opened[1]) closed: signed out"))
        #expect(try await http.send("GET", "/v1/profile", token: lasting).status == 401)

        // 3. A tab of an account merged into another is closed; reconnected, it opens the account it joined.
        try signIn("bob@example.com", message: 3)
        opened[0] += 1
        let bob = try hosts[0].waitForLog(Regex("web session \(opened[0]) open: browser account (acct_[0-9a-f]{16})")).output[1].substring
        #expect(bob.map(String.init) != account)
        let merge = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["accounts", "merge", "bob@example.com", "ada@example.com", "--data-dir", shop.dataDirectory],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        try #require(merge.status == 0, "\(merge.stderr)")
        try browser.waitFor("Your account was merged into another", timeout: 10)
        try hosts[0].waitForLog(Regex("web session \(opened[0]) closed: account merged"))
        try browser.must(["op": "click_reconnect"])
        try waitForTab(0, of: "browser account \(escapedAccount)")
        try shop.leave(ssh)
    }
}
