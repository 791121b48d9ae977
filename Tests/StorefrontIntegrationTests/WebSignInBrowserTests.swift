import Foundation
import StorefrontTesting
import Testing

/// A real browser (headless Chromium through Selenium) signs in on `storefront web`'s page: by the code msmtp mails into
/// aiosmtpd, then with oidc-provider-mock. The cookie is HttpOnly and SameSite=Lax, script cannot read it, the tab's shop
/// opens as the account, and a forged cookie is a guest's.
@Suite("Signing in with a real browser", .serialized, .ownThreads)
struct WebSignInBrowserTests {
    let root = TemporaryDirectory.make().path

    @Test func theBrowserSignsInByCodeAndByProviderIntoOneAccountWithAnHttpOnlyCookie() throws {
        let world = try SignInWorld(in: root)
        defer { world.stop() }
        let server = try ServeProcess(
            arguments: ["--mail-command", world.mail, "--openid-providers", world.providers], command: ["web", "--listen", "127.0.0.1:0"],
            dataDirectory: root + "/data")
        let page = "http://127.0.0.1:\(server.port)/"
        let browser = try Browser()
        try browser.must(["op": "record_sockets"])
        try browser.must(["op": "open", "url": page])
        try browser.waitFor("Guest: nothing is kept. Sign in above the shop")
        let guestSockets = try browser.must(["op": "socket_urls"])
        #expect((guestSockets["urls"] as? [String])?.first?.contains("signed-in") == false, "\(guestSockets)")

        try browser.must(["op": "click", "selector": "#account a"])
        try browser.must(["op": "fill", "selector": "input[name=email]", "text": "ada@example.com"])
        try browser.must(["op": "click", "selector": "button[type=submit]"])
        // Read once the next page is there: a read during the navigation finds the old page's elements gone.
        try browser.must(["op": "waitPage", "text": "If that email can get codes"])
        let asked = try browser.must(["op": "page"])
        #expect((asked["text"] as? String)?.contains("If that email can get codes") == true, "\(asked)")
        try browser.must(["op": "fill", "selector": "input[name=code]", "text": try world.code(0)])
        try browser.must(["op": "click", "selector": "button[type=submit]"])
        try browser.waitFor("ada@example.com")
        let signedIn = try browser.must(["op": "page"])
        #expect(signedIn["url"] as? String == page && (signedIn["text"] as? String)?.contains("Signed in as ada@example.com") == true)
        let cookies = signedIn["cookies"] as? [[String: Any]] ?? []
        let session = try #require(cookies.first { $0["name"] as? String == "storefront_session" }, "\(cookies)")
        #expect(session["httpOnly"] as? Bool == true && session["sameSite"] as? String == "Lax" && session["path"] as? String == "/")
        #expect((signedIn["scriptCookies"] as? String)?.contains("storefront_session") == false, "script cannot read it")
        try server.waitForLog(#/web session 2 open: browser account (acct_[0-9a-f]{16})/#)
        // The page names its sign-in on its socket, so a sign-in ended before the socket comes is told, not a guest's.
        let sockets = try browser.must(["op": "socket_urls"])
        let signInID = try #require(sockets["signedIn"] as? String, "\(sockets)")
        #expect(signInID.hasPrefix("ses_") && (sockets["urls"] as? [String])?.first?.hasSuffix("&signed-in=\(signInID)") == true, "\(sockets)")

        // Signed out, then in again with the provider: the same account.
        try browser.must(["op": "click", "selector": "#account button"])
        try browser.waitFor("Sign in above the shop")
        try browser.must(["op": "click", "selector": "#account a"])
        try browser.must(["op": "click", "selector": "a.provider"])
        try browser.must(["op": "fill", "selector": "input[name=sub]", "text": "ada-1"])
        try browser.must(["op": "click", "selector": "form button[type=submit]"])
        try browser.waitFor("ada@example.com")
        let first = try server.waitForLog(#/web session 2 open: browser account (acct_[0-9a-f]{16})/#).output.1
        let again = try server.waitForLog(#/web session 4 open: browser account (acct_[0-9a-f]{16})/#).output.1
        #expect(again == first, "the provider's subject reaches the account of its verified email")

        // A forged cookie in place of the real one is a guest's.
        try browser.must(["op": "add_cookie", "name": "storefront_session", "value": "sfs_" + String(repeating: "Q", count: 43)])
        try browser.must(["op": "open", "url": page])
        try browser.waitFor("Sign in above the shop")
    }
}
