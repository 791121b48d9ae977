import Foundation
import StorefrontTesting
import Testing

/// `storefront web` with a mail command: a visitor signs in on the page by a code mailed through msmtp into aiosmtpd,
/// the session lives in an HttpOnly, SameSite=Lax cookie whose secret only the browser has, the tab's shop opens as the
/// account, and sign-out ends the session. A forged cookie is a guest's, and nothing secret reaches the database.
@Suite("Signing in on the browser's page", .serialized, .ownThreads)
struct WebSignInTests {
    struct Page {
        var head: String
        var body: String
        var status: Int { Int(head.dropFirst(9).prefix(3)) ?? 0 }
    }

    let root = TemporaryDirectory.make().path

    func request(_ method: String, _ path: String, port: Int, origin: Bool = true, cookie: String? = nil, form: String? = nil) throws -> Page {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if origin { text += "Origin: http://127.0.0.1:\(port)\r\n" }
        if let cookie { text += "Cookie: \(cookie)\r\n" }
        if let form { text += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n" }
        let answer = try LocalStripe.exchange(text + "\r\n" + (form ?? ""), port: port)
        let parts = answer.components(separatedBy: "\r\n\r\n")
        return Page(head: parts[0], body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test func aCodeSignsTheVisitorInAndTheCookieOpensTheirAccountUntilSignOut() throws {
        let world = try SignInWorld(in: root)
        defer { world.stop() }
        let (sink, mail) = (world.sink, world.mail)
        let data = root + "/data"
        let server = try ServeProcess(arguments: ["--mail-command", mail], command: ["web", "--listen", "127.0.0.1:0"], dataDirectory: data)
        let port = server.port

        let guestPage = try request("GET", "/", port: port)
        #expect(guestPage.body.contains(#"<a href="sign-in">Sign in</a>"#) && guestPage.head.contains("form-action 'self'"), "\(guestPage.head)")
        #expect(try request("GET", "/sign-in", port: port).body.contains(#"<form method="post" action="./sign-in">"#))
        // A post from another page (no Origin of this one) is refused before anything is sent.
        #expect(try request("POST", "/sign-in", port: port, origin: false, form: "email=ada%40example.com").status == 403)
        #expect(try sink.messages().isEmpty)
        let bad = try request("POST", "/sign-in", port: port, form: "email=not-an-email")
        #expect(bad.status == 400 && bad.body.contains("class=\"error\""), "\(bad.body)")

        let asked = try request("POST", "/sign-in", port: port, form: "email=ada%40example.com")
        #expect(asked.status == 200 && asked.body.contains("If that email can get codes, one is on its way"), "\(asked.body)")
        let code = try world.code(0)
        let wrong = String(code.reversed()) == code ? "000000" : String(code.reversed())
        let refused = try request("POST", "/sign-in/code", port: port, form: "email=ada%40example.com&code=\(wrong == code ? "111111" : wrong)")
        #expect(refused.status == 401 && refused.body.contains("4 tries left"), "\(refused.body)")
        #expect(!refused.head.contains("Set-Cookie"))

        let signedIn = try request("POST", "/sign-in/code", port: port, form: "email=ada%40example.com&code=\(code)")
        #expect(signedIn.status == 303 && signedIn.head.contains("Location: ../"), "\(signedIn.head)")
        let setCookie = try #require(signedIn.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") })
        #expect(setCookie.hasSuffix("; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax"), "no Secure on plain http: \(setCookie)")
        let secret = try #require(setCookie.firstMatch(of: /storefront_session=(sfs_[A-Za-z0-9_-]{43})/).map { String($0.output.1) })
        let cookie = "storefront_session=\(secret)"
        // The code is used up: a second use is refused.
        #expect(try request("POST", "/sign-in/code", port: port, form: "email=ada%40example.com&code=\(code)").status == 401)

        let accountPage = try request("GET", "/", port: port, cookie: cookie)
        #expect(accountPage.body.contains("Signed in as ada@example.com") && accountPage.body.contains(#"action="sign-out""#))
        let client = try WebSocketTestClient(port: port)
        #expect(try client.handshake(origin: "http://127.0.0.1:\(port)", path: try tabPath(accountPage), cookie: cookie).hasPrefix("HTTP/1.1 101"))
        try server.waitForLog(#/web session 1 open: browser account acct_[0-9a-f]{16} from 127\.0\.0\.1/#)

        // A forged cookie is a guest's.
        let forged = "storefront_session=sfs_" + String(repeating: "A", count: 43)
        #expect(try request("GET", "/", port: port, cookie: forged).body.contains(#"<a href="sign-in">Sign in</a>"#))
        let guest = try WebSocketTestClient(port: port)
        #expect(try guest.handshake(origin: "http://127.0.0.1:\(port)", cookie: forged).hasPrefix("HTTP/1.1 101"))
        try server.waitForLog(#/web session 2 open: browser guest web-guest:/#)

        // Only the hashes are in the database: neither the session's secret nor the code.
        let database = try Data(contentsOf: URL(fileURLWithPath: data + "/storefront.sqlite"))
        #expect(database.range(of: Data(secret.utf8)) == nil && database.range(of: Data(code.utf8)) == nil)

        let out = try request("POST", "/sign-out", port: port, cookie: cookie)
        #expect(out.status == 303 && out.head.contains("storefront_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"), "\(out.head)")
        #expect(try request("GET", "/", port: port, cookie: cookie).body.contains(#"<a href="sign-in">Sign in</a>"#), "the session ended")
    }

    /// A tab whose page was drawn signed in, signed out before its socket came (everywhere, from another tab): the
    /// socket is told "You were signed out", as an open tab is, and not handed a guest's shop under "Signed in as";
    /// the session started with that page ends as signed out. A page drawn for a guest gets its guest's shop; one drawn
    /// for a sign-in ended since, whose browser signed in again as another, is told too, not handed the other's shop.
    /// A guest's page whose browser signed in before its socket came is its guest's shop, as its page shows.
    @Test func aTabSignedOutWhileItsPageLoadedIsToldSoNotGivenAGuestsShop() throws {
        let world = try SignInWorld(in: root)
        defer { world.stop() }
        // Every tab here is from one address, more than the two a visitor may have open.
        let server = try ServeProcess(
            arguments: ["--mail-command", world.mail], command: ["web", "--listen", "127.0.0.1:0", "--sessions-per-address", "8"],
            dataDirectory: root + "/data")
        let port = server.port
        let origin = "http://127.0.0.1:\(port)"
        _ = try request("POST", "/sign-in", port: port, form: "email=ada%40example.com")
        let signedIn = try request("POST", "/sign-in/code", port: port, form: "email=ada%40example.com&code=\(try world.code(0))")
        let session = try #require(cookie("storefront_session", in: signedIn.head))

        // The page, signed in, starts its session (the tab's size is known from last time) and names its sign-in.
        let page = try request("GET", "/", port: port, cookie: session + "; storefront-terminal=100x30")
        // The attribute ends <main>'s tag, whether the first screen's rows came in time to fill it or not.
        let main = page.body.firstRange(of: "<main").map { String(page.body[$0.lowerBound...].prefix(400)) } ?? page.body
        let ada = try #require(page.body.firstMatch(of: #/data-signed-in="(ses_[0-9a-f]{16})">/#)?.output.1, "\(main)")
        let token = try #require(page.body.firstMatch(of: WebEarlySessionJourneyTests.firstFrame)).output.1
        try server.waitForLog(#/web session 1 open: browser account acct_[0-9a-f]{16} from 127\.0\.0\.1, .*started with its page/#)
        #expect(try request("POST", "/sign-out", port: port, cookie: session).status == 303)

        // Its socket comes after: the page's session ends as signed out and the tab is told so.
        let late = try WebSocketTestClient(port: port)
        let path = "/session?columns=100&rows=30&session=\(token)&signed-in=\(ada)"
        #expect(try late.handshake(origin: origin, path: path, cookie: session).hasPrefix("HTTP/1.1 101"))
        let told = try late.untilClose()
        #expect(told.texts.contains { $0.contains(#""signedOut":true"#) && $0.contains("You were signed out") }, "\(told.texts)")
        let shopBytes = told.bytes.count
        #expect(shopBytes == 0, "nothing of the shop's is sent after its sign-in ended")
        #expect(told.close.map { Array($0.payload.prefix(2)) } == [0x03, 0xE9], "closed as going away (1001)")
        try server.waitForLog(#/web session 1: its page's socket came, 100x30, signed out since/#)
        try server.waitForLog(#/web session 1 closed: signed out/#)

        // Reconnected without a page of its own (no token): told the same, and no shop is started for it.
        let again = try WebSocketTestClient(port: port)
        #expect(try again.handshake(origin: origin, path: "/session?columns=100&rows=30&signed-in=\(ada)", cookie: session).hasPrefix("HTTP/1.1 101"))
        #expect(try again.untilClose().texts.contains { $0.contains(#""signedOut":true"#) })
        try server.waitForLog(#/web: a tab from 127\.0\.0\.1 came after its page's sign-in ended; told it was signed out/#)
        // A guest's page with the same ended cookie is a guest's shop: only a page drawn signed in is told.
        let guest = try WebSocketTestClient(port: port)
        #expect(try guest.handshake(origin: origin, cookie: session).hasPrefix("HTTP/1.1 101"))
        try server.waitForLog(#/web session 2 open: browser guest web-guest:/#)

        // Signed in again, as Bob: Ada's page is told she was signed out, and Bob's own page opens his shop.
        _ = try request("POST", "/sign-in", port: port, form: "email=bob%40example.com")
        let bobs = try request("POST", "/sign-in/code", port: port, form: "email=bob%40example.com&code=\(try world.code(1))")
        let bobCookie = try #require(cookie("storefront_session", in: bobs.head))
        let adasTab = try WebSocketTestClient(port: port)
        let adasPage = "/session?columns=100&rows=30&signed-in=\(ada)"
        #expect(try adasTab.handshake(origin: origin, path: adasPage, cookie: bobCookie).hasPrefix("HTTP/1.1 101"))
        #expect(try adasTab.untilClose().texts.contains { $0.contains(#""signedOut":true"#) })
        let bobsPage = try request("GET", "/", port: port, cookie: bobCookie)
        let bob = try #require(bobsPage.body.firstMatch(of: #/data-signed-in="(ses_[0-9a-f]{16})"/#)?.output.1)
        #expect(bob != ada && bobsPage.body.contains("Signed in as bob@example.com"))
        let bobsTab = try WebSocketTestClient(port: port)
        #expect(
            try bobsTab.handshake(origin: origin, path: "/session?columns=100&rows=30&signed-in=\(bob)", cookie: bobCookie).hasPrefix("HTTP/1.1 101"))
        let opened = try server.waitForLog(#/web session 3 open: [^\n]*/#)
        #expect(opened.output.contains("browser account acct_"), "Bob's page opens Bob's shop: \(opened.output)")

        // A guest's page, its session started with it, whose browser signed in (as Bob) before its socket came: the
        // socket adopts the guest's session its page shows, and opens no account's shop under the guest's bar.
        let guestsPage = try request("GET", "/", port: port, cookie: "storefront-terminal=100x30")
        #expect(!guestsPage.body.contains("data-signed-in") && guestsPage.body.contains(#"<a href="sign-in">Sign in</a>"#))
        let guestsToken = try #require(guestsPage.body.firstMatch(of: WebEarlySessionJourneyTests.firstFrame)).output.1
        try server.waitForLog(#/web session 4 open: browser guest web-guest:[0-9a-f]{16} from 127\.0\.0\.1, .*started with its page/#)
        let guestsTab = try WebSocketTestClient(port: port)
        #expect(
            try guestsTab.handshake(origin: origin, path: "/session?columns=100&rows=30&session=\(guestsToken)", cookie: bobCookie)
                .hasPrefix("HTTP/1.1 101"))
        // The whole line: a log line is written at once, so one at the log's end is not cut.
        try server.waitForLog(#/web session 4: its page's socket came, 100x30(\n|$)/#)
        #expect(!server.log.contains("web session 5 open"), "the page's guest session is the tab's, not a new account's shop")
    }

    /// A sign-in the database cannot read just now (the server down) is "come back", not "signed out" and not a
    /// guest's shop under "Signed in as": the page is a 503 that says so, and a tab drawn signed in is told so and
    /// given no shop. Once the database is back, the same cookie opens the account.
    @Test func aSignInTheDatabaseCannotReadIsComeBackLaterNeitherSignedOutNorAGuest() async throws {
        let world = try SignInWorld(in: root)
        defer { world.stop() }
        let postgres = try PostgresServer()
        let server = try ServeProcess(
            arguments: ["--mail-command", world.mail], environment: ["STOREFRONT_DATABASE_URL": try await postgres.createShop()],
            command: ["web", "--listen", "127.0.0.1:0"], dataDirectory: root + "/data")
        let port = server.port
        _ = try request("POST", "/sign-in", port: port, form: "email=ada%40example.com")
        let signedIn = try request("POST", "/sign-in/code", port: port, form: "email=ada%40example.com&code=\(try world.code(0))")
        let session = try #require(cookie("storefront_session", in: signedIn.head))
        let drawn = try request("GET", "/", port: port, cookie: session).body
        #expect(drawn.contains("Signed in as ada@example.com"))
        let ada = try #require(drawn.firstMatch(of: #/data-signed-in="(ses_[0-9a-f]{16})"/#)?.output.1)

        try postgres.kill()
        let page = try request("GET", "/", port: port, cookie: session)
        #expect(page.status == 503 && page.body.contains("The shop cannot check your sign-in just now"), "\(page.head)\n\(page.body)")
        #expect(page.head.contains("Retry-After: 60") && !page.body.contains("Sign in"), "\(page.head)")
        let tab = try WebSocketTestClient(port: port)
        let path = "/session?columns=100&rows=30&signed-in=\(ada)"
        #expect(try tab.handshake(origin: "http://127.0.0.1:\(port)", path: path, cookie: session).hasPrefix("HTTP/1.1 101"))
        let told = try tab.untilClose()
        #expect(told.texts.contains { $0.contains("cannot check your sign-in just now") && !$0.contains(#""signedOut":true"#) }, "\(told.texts)")
        #expect(told.close.map { Array($0.payload.prefix(2)) } == [0x03, 0xF5], "closed as try again later (1013)")
        try server.waitForLog(#/web: the sign-in of a tab from 127\.0\.0\.1 could not be read: /#)
        #expect(!server.log.contains("web session 1 open"), "no shop, the account's or a guest's")

        // Back: the same cookie opens the account's page and shop.
        try postgres.start()
        let deadline = ContinuousClock.now + .seconds(30)
        var back = try request("GET", "/", port: port, cookie: session)
        while back.status != 200, ContinuousClock.now < deadline { back = try request("GET", "/", port: port, cookie: session) }
        #expect(back.body.contains("Signed in as ada@example.com"), "\(back.head)")
        #expect(
            try WebSocketTestClient(port: port).handshake(origin: "http://127.0.0.1:\(port)", path: path, cookie: session).hasPrefix("HTTP/1.1 101"))
        try server.waitForLog(#/web session 1 open: browser account acct_[0-9a-f]{16}/#)
    }

    /// The socket's address a signed-in page's tab asks for: its size, and the sign-in the page was drawn for.
    func tabPath(_ page: Page) throws -> String {
        let signedIn = try #require(page.body.firstMatch(of: #/data-signed-in="(ses_[0-9a-f]{16})"/#)?.output.1, "\(page.body.prefix(1_500))")
        return "/session?columns=100&rows=30&signed-in=\(signedIn)"
    }

    /// The value of the `Set-Cookie` named `name` in `head`.
    func cookie(_ name: String, in head: String) -> String? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: \(name)=") }
            .map { String($0.dropFirst("set-cookie: ".count).prefix { $0 != ";" }) }
    }

    func location(_ page: Page) -> String? {
        page.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }.map {
            String($0.dropFirst(9)).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func aProviderSignsTheVisitorInToTheAccountOfItsVerifiedEmailAndACallbackWorksOnce() throws {
        let world = try SignInWorld(in: root)
        defer { world.stop() }
        let provider = world.provider
        let server = try ServeProcess(
            arguments: ["--mail-command", world.mail, "--openid-providers", world.providers], command: ["web", "--listen", "127.0.0.1:0"],
            dataDirectory: root + "/data")
        let port = server.port
        try server.waitForLog(#/sign-in: with Mock ID \(http://127\.0\.0\.1:\d+\)/#)

        // The email first: its code opens an account with the email verified.
        _ = try request("POST", "/sign-in", port: port, form: "email=ada%40example.com")
        let byCode = try request("POST", "/sign-in/code", port: port, form: "email=ada%40example.com&code=\(try world.code(0))")
        let codeCookie = try #require(cookie("storefront_session", in: byCode.head))
        let codePage = try tabPath(try request("GET", "/", port: port, cookie: codeCookie))
        #expect(
            try WebSocketTestClient(port: port).handshake(origin: "http://127.0.0.1:\(port)", path: codePage, cookie: codeCookie).hasPrefix(
                "HTTP/1.1 101"))
        let first = try server.waitForLog(#/web session 1 open: browser account (acct_[0-9a-f]{16})/#).output.1

        #expect(try request("GET", "/sign-in", port: port).body.contains(#"href="./sign-in/oidc/mock">Sign in with Mock ID</a>"#))
        let start = try request("GET", "/sign-in/oidc/mock", port: port)
        #expect(start.status == 302, "\(start.head)")
        let binding = try #require(cookie("storefront_oidc", in: start.head))
        #expect(start.head.contains("Max-Age=600; Path=/sign-in/oidc/; HttpOnly; SameSite=Lax"))
        let authorize = try #require(location(start))
        #expect(authorize.hasPrefix(provider.issuer + "/oauth2/authorize?") && authorize.contains("code_challenge_method=S256"))
        #expect(OpenIDTestProvider.parameter("redirect_uri", of: authorize) == "http://127.0.0.1:\(port)/sign-in/oidc/mock/callback")
        let back = try provider.authorize(authorize, as: "ada-1")
        let callback = String(back.dropFirst("http://127.0.0.1:\(port)".count))

        // Another browser (no binding cookie) cannot use the callback, and its try does not spend the state.
        let elsewhere = try request("GET", callback, port: port)
        #expect(elsewhere.status == 400 && elsewhere.body.contains("This sign-in was not started in this browser"), "\(elsewhere.body)")
        let signedIn = try request("GET", callback, port: port, cookie: binding)
        #expect(signedIn.status == 303 && location(signedIn) == "../../../", "\(signedIn.head)\n\(signedIn.body)")
        let session = try #require(cookie("storefront_session", in: signedIn.head))
        #expect(signedIn.head.contains("storefront_oidc=; Max-Age=0"), "the binding is cleared")
        // The same callback again (a replayed state and code) is refused.
        let replay = try request("GET", callback, port: port, cookie: binding)
        #expect(replay.status == 400 && replay.body.contains("This sign-in was used already"), "\(replay.body)")

        let providerPage = try request("GET", "/", port: port, cookie: session)
        #expect(providerPage.body.contains("Signed in as ada@example.com"))
        #expect(
            try WebSocketTestClient(port: port).handshake(origin: "http://127.0.0.1:\(port)", path: try tabPath(providerPage), cookie: session)
                .hasPrefix("HTTP/1.1 101"))
        let second = try server.waitForLog(#/web session 2 open: browser account (acct_[0-9a-f]{16})/#).output.1
        #expect(second == first, "the provider's subject joined the account of the email it vouches for")
        let stored = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["accounts", "show", "ada@example.com", "--json", "--data-dir", root + "/data"])
        #expect(stored.stdout.contains("\"kind\" : \"oidc\"") || stored.stdout.contains("\"kind\":\"oidc\""), "\(stored.stdout)")
    }

    /// A provider that is down, or whose discovery is not a document, is "try again later" on the page, its detail in
    /// the log only; a provider the shop has not is a 404.
    @Test func aProviderThatFailsIsTryAgainLaterWithItsDetailInTheLogOnly() throws {
        let world = try SignInWorld(in: root)
        defer { world.stop() }
        // A listening socket that answers no HTTP: discovery reads nothing a provider would say.
        let broken = root + "/broken.json"
        try #"{"providers":[{"id":"down","name":"Down ID","issuer":"http://127.0.0.1:1","client_id":"shop","email_domains":["example.com"]}]}"#
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let server = try ServeProcess(
            arguments: ["--mail-command", world.mail, "--openid-providers", broken], command: ["web", "--listen", "127.0.0.1:0"],
            dataDirectory: root + "/data")
        let down = try request("GET", "/sign-in/oidc/down", port: server.port)
        #expect(down.status == 503 && down.body.contains("Down ID cannot be reached just now. Try again in a few minutes."), "\(down.head)")
        #expect(!down.body.contains("errno") && !down.body.contains("Error"), "no insides on the page: \(down.body)")
        try server.waitForLog(#/web sign-in: Down ID \(http:\/\/127\.0\.0\.1:1\) failed: /#)
        #expect(try request("GET", "/sign-in/oidc/nosuch", port: server.port).status == 404)
    }
}
