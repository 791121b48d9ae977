import Foundation
import StorefrontTesting
import Testing

/// One person, end to end, on SQLite and on PostgreSQL, every front its own process on one database: they buy over SSH
/// with key A, prove their email there, join key B by the emailed code, sign in to the browser by the code and with the
/// OpenID Connect provider, make an API token in the browser tab's shop, and see one cart and one order list everywhere.
/// They remove key A from key B's account screen; key A is refused at its next connection.
@Suite("One person across SSH keys, the browser and the API", .serialized, .ownThreads)
struct OnePersonJourneyTests {
    let root = TemporaryDirectory.make().path

    /// The account screen's "join account" by the emailed code, in an SSH session.
    static func join(_ terminal: TmuxTerminal, world: SignInWorld, message: Int) throws {
        try terminal.press("u")
        try terminal.waitFor("Have an account? i: enter its email")
        try terminal.press("i")
        try terminal.waitFor("Join your account")
        try terminal.write("ada@example.com")
        try terminal.press("Enter")
        try terminal.waitFor("If that email can get codes")
        try terminal.write(try world.code(message))
        try terminal.press("Enter")
        try terminal.waitFor("This key now reaches your account.")
    }

    func post(_ path: String, _ form: String, port: Int, cookie: String? = nil) throws -> String {
        var request = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nOrigin: http://127.0.0.1:\(port)\r\n"
        if let cookie { request += "Cookie: \(cookie)\r\n" }
        request += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n\(form)"
        return try LocalStripe.exchange(request, port: port)
    }

    func get(_ path: String, port: Int, cookie: String? = nil) throws -> String {
        try LocalStripe.exchange(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\(cookie.map { "Cookie: \($0)\r\n" } ?? "")\r\n", port: port)
    }

    static func header(_ name: String, in answer: String) -> String? {
        answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    static func sessionCookie(_ answer: String) -> String? {
        answer.firstMatch(of: /storefront_session=(sfs_[A-Za-z0-9_-]{43})/).map { "storefront_session=\($0.output.1)" }
    }

    @Test(arguments: APIEndToEndTests.Database.allCases)
    func onePersonIsOneAccountEverywhere(_ database: APIEndToEndTests.Database) async throws {
        var (environment, postgres) = try await database.shop()
        defer { withExtendedLifetime(postgres) {} }
        // Every host of one database hashes codes with one key.
        environment["STOREFRONT_CODE_KEY"] = Data(repeating: 42, count: 32).base64EncodedString()
        let world = try SignInWorld(in: root)
        defer { world.stop() }
        let shop = try ServeProcess(arguments: ["--mail-command", world.mail], environment: environment)
        let web = try ServeProcess(
            arguments: ["--mail-command", world.mail, "--openid-providers", world.providers], environment: environment,
            command: ["web", "--listen", "127.0.0.1:0"], dataDirectory: shop.dataDirectory)
        let api = try ServeProcess(environment: environment, command: ["api", "--listen", "127.0.0.1:0"], dataDirectory: shop.dataDirectory)
        let keyA = try shop.makeClientKey("laptop")
        let keyB = try shop.makeClientKey("desktop")
        let fingerprintA = try ServeProcess.fingerprint(ofKey: keyA)

        // Key A buys, then proves the email: no account has it, so it becomes key A's account's.
        let first = try TmuxTerminal()
        try shop.connect(first, key: keyA)
        try first.press("Enter", "a", "c", "Enter", "p", "Enter")
        let thanks = try first.waitFor("Thank you")
        let number = String(try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1))
        try Self.join(first, world: world, message: 0)
        try shop.leave(first)

        // Key B, seen for the first time, joins that account by the code and sees the order.
        let second = try TmuxTerminal()
        try shop.connect(second, key: keyB)
        try second.waitFor("New key? If you have an account")
        try Self.join(second, world: world, message: 1)
        try second.press("o")
        try second.waitFor(number)
        try shop.leave(second)

        // The browser: by the code, then with the provider; each opens the tab's shop as key A's account.
        _ = try post("/sign-in", "email=ada%40example.com", port: web.port)
        let byCode = try post("/sign-in/code", "email=ada%40example.com&code=\(try world.code(2))", port: web.port)
        let codeCookie = try #require(Self.sessionCookie(byCode), "\(byCode.prefix(400))")
        let start = try get("/sign-in/oidc/mock", port: web.port)
        let binding = try #require(start.firstMatch(of: /storefront_oidc=([A-Za-z0-9_-]+)/).map { "storefront_oidc=\($0.output.1)" })
        let back = try world.provider.authorize(try #require(Self.header("Location", in: start)), as: "ada-1")
        let byProvider = try get(String(back.dropFirst("http://127.0.0.1:\(web.port)".count)), port: web.port, cookie: binding)
        let providerCookie = try #require(Self.sessionCookie(byProvider), "\(byProvider.prefix(600))")
        let account = "ssh:" + fingerprintA
        for cookie in [codeCookie, providerCookie] {
            #expect(try get("/", port: web.port, cookie: cookie).contains("Signed in as ada@example.com"))
        }

        // An API token made in the browser tab's shop (u, t, a name), read off the tab's screen.
        // The page's socket names the sign-in the page was drawn for, as the page's own script does.
        let signedIn = try #require(
            try get("/", port: web.port, cookie: providerCookie).firstMatch(of: #/data-signed-in="(ses_[0-9a-f]{16})"/#)?.output.1)
        let tab = try WebSocketTestClient(port: web.port)
        #expect(
            try tab.handshake(
                origin: "http://127.0.0.1:\(web.port)", path: "/session?columns=100&rows=30&signed-in=\(signedIn)", cookie: providerCookie
            )
            .hasPrefix("HTTP/1.1 101"))
        try web.waitForLog(Regex("web session 1 open: browser account \(NSRegularExpression.escapedPattern(for: account))"))
        var seen = ""
        func readUntil(_ done: (String) -> Bool, _ what: String) throws {
            while !done(seen) {
                guard let frame = try tab.nextFrame(timeout: .seconds(30)), frame.opcode == 2 else {
                    throw TmuxError(message: "no \(what) in \(seen.suffix(500))")
                }
                seen += frame.text
            }
        }
        func readUntil(_ text: String) throws { try readUntil({ $0.contains(text) }, text) }
        try readUntil("Canvas Tote")
        // Enter goes from the name to how long it lasts (a tab's token ends with its sign-in), then makes it.
        for keys in ["u", "t", "script", "\r", "\r"] {
            try tab.send(Array(keys.utf8))
            if keys == "t" { try readUntil("Name") }
        }
        try readUntil({ $0.firstMatch(of: /sfp_[0-9A-Za-z]{43}/) != nil }, "the token's secret")
        let token = try #require(seen.firstMatch(of: /sfp_[0-9A-Za-z]{43}/).map { String($0.output) }, "\(seen.suffix(800))")

        // One order list and one cart, through the API with that token and in key B's shop.
        let http = HTTPClient(port: api.port)
        let orders = try await http.send("GET", "/v1/orders", token: token)
        #expect(orders.status == 200 && "\(orders.json)".contains(number), "\(orders.json)")
        #expect(try await http.send("PUT", "/v1/cart/lines/rubber-duck", token: token, json: #"{"quantity": 3}"#).status == 200)

        // Codes, session secrets and the token exist only as hashes: not in the database (the SQLite files, or a
        // pg_dump) and not in any log line.
        let codes = [try world.code(0), try world.code(1), try world.code(2)]
        let secrets = [codeCookie, providerCookie, token].map { $0.replacingOccurrences(of: "storefront_session=", with: "") }
        var kept = shop.log + web.log + api.log
        if let url = environment["STOREFRONT_DATABASE_URL"] {
            let dump = try Subprocess.run("/usr/bin/env", ["pg_dump", "--data-only", url])
            try #require(dump.status == 0, "pg_dump: \(dump.stderr)")
            kept += dump.stdout
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: shop.dataDirectory).map { shop.dataDirectory + "/" + $0 }
        for file in files where file.contains("storefront.sqlite") || file.hasSuffix(".log") {
            kept += String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)
        }
        for secret in secrets { #expect(!kept.contains(secret), "\(secret.prefix(8))… is kept somewhere") }
        // A code is six digits: looked for on its own, not inside a longer number (a time, a price) and not as the
        // fraction of one. Hashes, ids and tokens are long runs of letters and digits, and on PostgreSQL the logs and
        // the dump held about 1,600 runs of six digits inside them, so about one run in 200 met a code by chance (CI saw
        // it); they are blanked first. A timestamp's microseconds ("07.120751+00") are six digits after a point.
        let words = kept.replacing(/[0-9A-Za-z_-]{16,}/, with: " ")
        for code in codes {
            guard let match = words.firstMatch(of: try Regex("(?:^|[^0-9.])\(code)(?:[^0-9]|$)")) else { continue }
            let before = words.index(match.range.lowerBound, offsetBy: -80, limitedBy: words.startIndex) ?? words.startIndex
            Issue.record("the code \(code) is kept: …\(words[before..<match.range.upperBound])")
        }
        #expect(kept.contains(account), "the search reads what was kept")

        // From key B's account screen, key A goes; its next connection is refused.
        let third = try TmuxTerminal()
        try shop.connect(third, key: keyB)
        try third.press("c")
        try third.waitFor("Debugging Duck")
        try third.press("u")
        try third.waitFor("Your account")
        let short = String(fingerprintA.prefix(14))
        try third.selectRow(containing: short)
        try third.press("x")
        try third.waitFor("Removed SSH key \(short)")
        try shop.leave(third)
        let refused = try TmuxTerminal()
        try refused.type(shop.sshCommand(key: keyA) + "; echo EXIT=$?")
        let told = try refused.waitFor("EXIT=77", timeout: .seconds(30)).replacingOccurrences(of: "\n", with: "")
        #expect(told.contains("This SSH key (\(fingerprintA)) was taken off its account, so it is refused."), "\(told)")
    }
}
