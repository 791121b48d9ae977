import Foundation
import StorefrontTesting
import Testing

/// Signing in with an OpenID Connect provider from a terminal, every part real: `serve` over OpenSSH, `web` where the
/// link opens and the provider calls back, oidc-provider-mock as the provider. The waiting session learns the outcome
/// the moment `web` has it: woken through a named pipe beside SQLite, or by PostgreSQL's NOTIFY.
@Suite("OpenID Connect from a terminal", .serialized, .ownThreads)
struct TerminalOpenIDTests {
    let root = TemporaryDirectory.make().path
    let journey = OnePersonJourneyTests()

    /// The sign-in link on screen, whole (the screen is wide enough for it on one row), and the code shown beside it.
    static func linkShown(_ terminal: TmuxTerminal, _ pattern: Regex<(Substring, Substring)>) throws -> (link: String, code: String) {
        // The QR code is drawn one effect after the link (it is encoded off the reducer), so the wait is for both.
        let screen = try terminal.waitUntil("the link and its QR code") { $0.contains("Waiting for Mock ID") && $0.contains("█") }
        let link = try #require(screen.firstMatch(of: pattern).map { String($0.output.1) }, "\(screen)")
        // The message wraps where it must: the code may begin a row.
        let code = try #require(screen.firstMatch(of: /shows\s+([A-Z2-9]{4}-[A-Z2-9]{4})/).map { String($0.output.1) }, "\(screen)")
        #expect(screen.contains("▀"), "and its QR code: \(screen)")
        return (link, code)
    }

    /// The browser's part: the link's page shows the terminal's code; its button goes to the provider, bound to this
    /// browser; Ada signs in there; the callback lands on `web`, which tells the terminal.
    func finishInBrowser(_ link: String, code: String, web: ServeProcess, world: SignInWorld) throws -> String {
        let path = String(link.dropFirst("http://127.0.0.1:\(web.port)".count))
        let page = try journey.get(path, port: web.port)
        #expect(page.hasPrefix("HTTP/1.1 200") && page.contains(code), "\(page.prefix(800))")
        let start = try journey.post(path, "", port: web.port)
        let binding = try #require(start.firstMatch(of: /storefront_oidc=([A-Za-z0-9_-]+)/).map { "storefront_oidc=\($0.output.1)" }, "\(start)")
        let back = try world.provider.authorize(try #require(OnePersonJourneyTests.header("Location", in: start)), as: "ada-1")
        return try journey.get(String(back.dropFirst("http://127.0.0.1:\(web.port)".count)), port: web.port, cookie: binding)
    }

    @Test(arguments: APIEndToEndTests.Database.allCases)
    func twoKeysJoinOneAccountByTheProvidersLinkFinishedInTheBrowser(_ database: APIEndToEndTests.Database) async throws {
        var (environment, postgres) = try await database.shop()
        defer { withExtendedLifetime(postgres) {} }
        environment["STOREFRONT_CODE_KEY"] = Data(repeating: 7, count: 32).base64EncodedString()
        let world = try SignInWorld(in: root)
        defer { world.stop() }
        let web = try ServeProcess(
            arguments: ["--openid-providers", world.providers], environment: environment, command: ["web", "--listen", "127.0.0.1:0"])
        let shop = try ServeProcess(
            arguments: ["--mail-command", world.mail, "--openid-providers", world.providers, "--web-origin", "http://127.0.0.1:\(web.port)"],
            environment: environment, dataDirectory: web.dataDirectory)
        try shop.waitForLog(#/sign-in: with Mock ID .* from the terminal, by http:\/\/127\.0\.0\.1/#)
        let linkPattern = try Regex<(Substring, Substring)>(#"(http://127\.0\.0\.1:\#(web.port)/sign-in/terminal/[A-Za-z0-9_-]{22})"#)
        var links: [String] = []
        for name in ["laptop", "desktop"] {
            let terminal = try TmuxTerminal(columns: 120, rows: 44)
            try shop.connect(terminal, key: try shop.makeClientKey(name))
            try terminal.waitFor("New key? If you have an account")
            try terminal.press("u")
            try terminal.press("i")
            // The choice: the emailed code first; "m" picks Mock ID.
            try terminal.waitFor("Sign in with")
            try terminal.press("m")
            try terminal.waitFor("Mock ID ›")
            try terminal.press("Enter")
            let (link, code) = try Self.linkShown(terminal, linkPattern)
            links.append(link)
            let done = try finishInBrowser(link, code: code, web: web, world: world)
            #expect(done.contains("Your terminal is signed in now"), "\(done.prefix(800))")
            #expect(!done.contains("storefront_session=sfs_"), "the browser keeps no session of its own")
            // At once, woken: the first key's account takes the provider and Ada's verified email; the second joins it.
            try terminal.waitFor("This key now reaches your account.", timeout: .seconds(10))
            try shop.leave(terminal)
        }
        let shown = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["accounts", "show", "ada@example.com", "--json", "--data-dir", web.dataDirectory],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        #expect(shown.status == 0, "\(shown.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let ways = try #require((document["account"] as? [String: Any])?["waysIn"] as? [[String: Any]]).compactMap { $0["kind"] as? String }
        #expect(ways.sorted() == ["oidc", "ssh-key", "ssh-key"], "one account: both keys and the provider: \(shown.stdout)")

        // A link is good once: opened again after its sign-in, it goes nowhere.
        let path = String(links[0].dropFirst("http://127.0.0.1:\(web.port)".count))
        let again = try journey.post(path, "", port: web.port)
        #expect(again.hasPrefix("HTTP/1.1 400") && again.contains("used already"), "\(again.prefix(600))")
        // A post from another site's page is refused before anything is looked up.
        let forged = try LocalStripe.exchange(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(web.port)\r\nConnection: close\r\nOrigin: https://evil.example\r\nContent-Length: 0\r\n\r\n",
            port: web.port)
        #expect(forged.hasPrefix("HTTP/1.1 403"), "\(forged.prefix(300))")
    }

    @Test func aLocalTerminalSignsInByTheDeviceFlowAndStaysSignedIn() throws {
        let world = try SignInWorld(in: root, device: true)
        defer { world.stop() }
        let terminal = try TmuxTerminal(
            columns: 120, rows: 44,
            environment: ["STOREFRONT_OPENID_PROVIDERS": world.providers, "STOREFRONT_CODE_KEY": Data(repeating: 9, count: 32).base64EncodedString()])
        let data = terminal.directory.path + "/data"
        try StripeCardPageEndToEndTests.startShop(terminal, data: data)
        try terminal.press("u")
        try terminal.waitFor("Your account")
        try terminal.press("i")
        // One way only (no mail here): straight to the provider's device page, with its code to confirm.
        // The QR code is drawn one effect after the link (it is encoded off the reducer), so the wait is for both.
        let screen = try terminal.waitUntil("the link and its QR code") { $0.contains("Waiting for Mock ID") && $0.contains("█") }
        let link = try #require(screen.firstMatch(of: /(http:\/\/127\.0\.0\.1:\d+\/device\?user_code=([0-9A-F]{8}))/), "\(screen)")
        #expect(screen.contains(try Regex("confirm the code\\s+\(link.output.2)")), "\(screen)")
        try world.provider.decide(userCode: String(link.output.2), as: "ada-1")
        try terminal.waitFor("Signed in as Ada", timeout: .seconds(15))
        try terminal.press("q")
        try terminal.waitForExit()
        // The session's secret is in the credential file: the next start is still Ada's, checked at launch.
        try StripeCardPageEndToEndTests.startShop(terminal, data: data)
        try terminal.press("u")
        try terminal.waitFor("Ada")
        try terminal.press("q")
    }

    /// Google's device endpoint names the address `verification_url` and gives no address with the code in it.
    @Test func aDeviceFlowAnsweredAsGoogleAnswersSignsIn() throws {
        let world = try SignInWorld(in: root, device: true, google: "tv")
        defer { world.stop() }
        let terminal = try TmuxTerminal(
            columns: 120, rows: 44,
            environment: ["STOREFRONT_OPENID_PROVIDERS": world.providers, "STOREFRONT_CODE_KEY": Data(repeating: 9, count: 32).base64EncodedString()])
        try StripeCardPageEndToEndTests.startShop(terminal, data: terminal.directory.path + "/data")
        try terminal.press("u")
        try terminal.waitFor("Your account")
        try terminal.press("i")
        let screen = try terminal.waitFor("Waiting for Mock ID")
        #expect(screen.contains(try Regex(#"http://127\.0\.0\.1:\#(world.provider.port)/device\s"#)), "\(screen)")
        let code = try #require(screen.firstMatch(of: /confirm the code\s+([0-9A-F]{8})/), "\(screen)").output.1
        try world.provider.decide(userCode: String(code), as: "ada-1")
        try terminal.waitFor("Signed in as Ada", timeout: .seconds(15))
        try terminal.press("q")
    }

    /// Google refuses the device flow to a web client, the kind the docs set up: with a web origin, the shop goes on
    /// through its own link, finished in the browser.
    @Test func aDeviceFlowTheProviderRefusesFallsBackToTheShopsLink() throws {
        let world = try SignInWorld(in: root, device: true, google: "web")
        defer { world.stop() }
        let web = try ServeProcess(arguments: ["--openid-providers", world.providers], command: ["web", "--listen", "127.0.0.1:0"])
        let shop = try ServeProcess(
            arguments: ["--openid-providers", world.providers, "--web-origin", "http://127.0.0.1:\(web.port)"], dataDirectory: web.dataDirectory)
        let terminal = try TmuxTerminal(columns: 120, rows: 44)
        try shop.connect(terminal, key: try shop.makeClientKey("laptop"))
        try terminal.press("u")
        try terminal.waitFor("Your account")
        try terminal.press("i")
        let linkPattern = try Regex<(Substring, Substring)>(#"(http://127\.0\.0\.1:\#(web.port)/sign-in/terminal/[A-Za-z0-9_-]{22})"#)
        let (link, code) = try Self.linkShown(terminal, linkPattern)
        let done = try finishInBrowser(link, code: code, web: web, world: world)
        #expect(done.contains("Your terminal is signed in now"), "\(done.prefix(800))")
        try terminal.waitFor("This key now reaches your account.", timeout: .seconds(10))
        try shop.leave(terminal)
    }

    @Test func aDeviceCodeTurnedDownAtTheProviderLeavesAGuest() throws {
        let world = try SignInWorld(in: root, device: true)
        defer { world.stop() }
        let terminal = try TmuxTerminal(
            columns: 120, rows: 44,
            environment: ["STOREFRONT_OPENID_PROVIDERS": world.providers, "STOREFRONT_CODE_KEY": Data(repeating: 9, count: 32).base64EncodedString()])
        try StripeCardPageEndToEndTests.startShop(terminal, data: terminal.directory.path + "/data")
        try terminal.press("u")
        try terminal.waitFor("Your account")
        try terminal.press("i")
        let screen = try terminal.waitFor("Waiting for Mock ID")
        let code = try #require(screen.firstMatch(of: /user_code=([0-9A-F]{8})/), "\(screen)").output.1
        try world.provider.decide(userCode: String(code), as: "ada-1", approve: false)
        try terminal.waitFor("The sign-in was turned down at Mock ID.", timeout: .seconds(15))
        try terminal.press("q")
    }
}
