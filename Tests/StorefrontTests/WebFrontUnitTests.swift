import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import PseudoTerminal
import ShopApplication
import ShopLanguages
import ShopModels
import ShopPorts
import ShopSandbox
import Testing

@testable import ShopWebFront

/// The browser front's pieces that need no socket: origins, the input rate, the page's messages, the words shown.
@Suite("The browser front's rules")
struct WebFrontUnitTests {
    @Test func originsAreParsedAsBrowsersSendThem() {
        #expect(WebOrigin("https://Shop.Example")?.description == "https://shop.example")
        #expect(WebOrigin("https://shop.example:443")?.description == "https://shop.example", "a default port is dropped, as browsers do")
        #expect(WebOrigin("http://127.0.0.1:8080/")?.description == "http://127.0.0.1:8080")
        #expect(WebOrigin("http://[::1]:8080")?.description == "http://[::1]:8080")
        for bad in [
            "shop.example", "ftp://shop.example", "https://shop.example/shop", "https://user@shop.example", "https://", "https://shop.example:99999",
            "null",
        ] {
            #expect(WebOrigin(bad) == nil, "\(bad)")
        }
        #expect(WebOrigin.loopback(port: 8080).map(\.description) == ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"])
    }

    @Test func inputIsAllowedInBurstsAndAtTheRateButNoFaster() {
        var limits = WebFrontLimits()
        limits.inputBurstBytes = 1_000
        limits.inputBytesPerSecond = 100
        limits.messageCost = 10
        let start = ContinuousClock.now
        var allowance = InputAllowance(limits: limits, now: start)
        let taken = [
            allowance.take(900, at: start), allowance.take(100, at: start),
            allowance.take(1, at: start),  // the burst is spent; even one key costs the minimum
            allowance.take(50, at: start + .milliseconds(500)),  // half a second refills 50 bytes
            allowance.take(10, at: start + .milliseconds(500)),
            allowance.take(1_000, at: start + .seconds(60)),  // a long pause refills the burst and no more
            allowance.take(10, at: start + .seconds(60)),
        ]
        #expect(taken == [true, true, false, true, false, true, false])
    }

    @Test func thePageMaySendOnlyAResizeBesidesKeys() {
        #expect(WebControlMessage(#"{"type":"resize","columns":120,"rows":40}"#) == .resize(TerminalSize(columns: 120, rows: 40)))
        #expect(WebControlMessage(#"{"type":"resize","columns":0,"rows":40}"#) == nil)
        #expect(WebControlMessage(#"{"type":"resize","columns":"120","rows":40}"#) == nil)
        #expect(WebControlMessage(#"{"type":"paste","text":"x"}"#) == nil)
        #expect(WebControlMessage("not json") == nil)
        #expect(WebControlMessage(#"{"type":"resize","columns":120,"rows":40,"pad":""# + String(repeating: "x", count: 300) + #""}"#) == nil)
    }

    @Test func thePagesSizeComesFromItsQueryWithTheClassicSizeForAnythingElse() {
        #expect(WebFront.requestedSize("/session?columns=132&rows=43") == TerminalSize(columns: 132, rows: 43))
        #expect(WebFront.requestedSize("/session") == TerminalSize(columns: 80, rows: 24))
        #expect(WebFront.requestedSize("/session?columns=-1&rows=abc") == TerminalSize(columns: 80, rows: 24))
    }

    @Test func aForwardedAddressIsBelievedOnlyWhenToldAndOnlyTheProxysOwnEntry() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "10.0.0.9", port: 4000)).wait()
        var request = HTTPRequest(method: .get, scheme: nil, authority: "shop.example", path: "/session")
        request.headerFields[.init("X-Forwarded-For")!] = "6.6.6.6, 203.0.113.7"
        #expect(WebFront.clientAddress(request, channel: channel, trustForwardedFor: false) == "10.0.0.9")
        #expect(WebFront.clientAddress(request, channel: channel, trustForwardedFor: true) == "203.0.113.7")
        request.headerFields[.init("X-Forwarded-For")!] = "<script>"
        #expect(WebFront.clientAddress(request, channel: channel, trustForwardedFor: true) == "10.0.0.9", "not an address: the peer")
    }

    @Test func theWordsForEachEndingSayWhyAndWhatToDo() {
        let limits = WebFrontLimits()
        #expect(WebNotice.ending(.idle, crashed: false, termination: .signalled(SIGTERM), limits: limits).0 == "Closed after 15m without a key.")
        #expect(WebNotice.ending(.shopExited, crashed: true, termination: .signalled(SIGSEGV), limits: limits).0.description.contains("SIGSEGV"))
        #expect(WebNotice.json(ended: "Bye \"now\"") == #"{"text":"Bye \"now\"","type":"ended"}"#)
        #expect(WebPage.html(title: "<Shop & Co>").contains("<title>&lt;Shop &amp; Co&gt;</title>"), "the shop's name is escaped")
    }

    /// The page and its sign-in forms speak the language the browser's `Accept-Language` asks for, and say so in `lang`;
    /// the words the page's script shows come on the status box, in that language too.
    @Test func thePagesAreInTheBrowsersLanguage() {
        var headers = HTTPFields()
        headers[.acceptLanguage] = "de-AT,de;q=0.9,en;q=0.5"
        let german = PageWords(headers)
        let page = WebPage.html(title: "Storefront", account: WebSignedIn(id: "acct_1", label: "max@example.de", session: "ses_1"), words: german)
        #expect(page.contains(#"<html lang="de">"#) && page.contains("Angemeldet als max@example.de") && page.contains(">Abmelden</button>"))
        #expect(page.contains(#"data-lost="Die Verbindung zum Shop wurde unterbrochen.""#), "\(page)")
        headers[.acceptLanguage] = "fr"
        let french = WebSignInPage.emailForm(title: "Storefront", root: "./", words: PageWords(headers), error: "<b>", email: "a@b.fr")
        #expect(french.contains(#"<html lang="fr">"#) && french.contains("Se connecter à Storefront") && french.contains("&lt;b&gt;"))
        headers[.acceptLanguage] = "pt-BR"
        #expect(WebPage.html(title: "Storefront", signIn: true, words: PageWords(headers)).contains(#"<a href="sign-in">Sign in</a> to keep"#))
        let (ending, _) = WebNotice.ending(.idle, crashed: false, termination: .signalled(SIGTERM), limits: WebFrontLimits())
        #expect(Translation.for(.japanese).string(ending) != ending.description, "the notice the page shows is in the catalog")
        #expect(Translation.for(.spanish).string(WebNotice.refusal(.tooManyGuests(source: "a", limit: 1))).hasPrefix("Su dirección"))
    }

    @Test func aGuestsCartAndProfileStayInMemoryWhileAnAccountsAreKept() async throws {
        let kept: any CartRepository = InMemoryCartRepository()
        let carts = GuestKeptApartCartRepository(guest: "web-guest:1", forAccounts: kept)
        let line = CartLine(productID: "mug", name: "Mug", unitPrice: Money(minorUnits: 1800, currency: .usd), quantity: 1)
        try await carts.save([line], forCustomer: "web-guest:1")
        try await carts.save([line, line], forCustomer: "sandbox:jane")
        #expect(try await kept.lines(forCustomer: "web-guest:1").isEmpty, "the guest's cart never reaches the store")
        #expect(try await kept.lines(forCustomer: "sandbox:jane").count == 2)
        #expect(try await carts.lines(forCustomer: "web-guest:1") == [line])

        let profiles: any AccountProfileRepository = InMemoryAccountProfileRepository()
        let routed = GuestKeptApartProfileRepository(guest: "web-guest:1", forAccounts: profiles)
        try await routed.save(AccountProfile(customerID: "web-guest:1", name: "Guest", email: nil))
        try await routed.save(AccountProfile(customerID: "sandbox:jane", name: "Jane", email: "jane@example.com"))
        #expect(try await profiles.profile(forCustomer: "web-guest:1") == nil)
        #expect(try await profiles.profile(forCustomer: "sandbox:jane")?.name == "Jane")
    }

    /// A socket opens the shop its page shows: the account's where the page names the sign-in its cookie holds, a
    /// guest's for a guest's page whatever the cookie says, and none where the page's sign-in has ended or cannot be read.
    @Test func aSocketOpensTheShopItsPageShows() {
        let ada = WebSignedIn(id: "acct_1", label: "ada@example.com", session: "ses_00000000000000a1")
        let bob = WebSignedIn(id: "acct_2", label: "bob@example.com", session: "ses_00000000000000b2")
        let adasPage = "/session?columns=100&rows=30&signed-in=ses_00000000000000a1"
        let guestsPage = "/session?columns=100&rows=30"
        func opens(_ lookup: WebSignInLookup, _ path: String) -> (account: String?, signedOutSincePage: Bool, unreadable: String?) {
            let socket = SocketSignIn(lookup, path: path)
            return (socket.account?.id, socket.signedOutSincePage, socket.unreadable)
        }
        #expect(opens(.signedIn(ada), adasPage) == ("acct_1", false, nil))
        #expect(opens(.signedIn(ada), guestsPage) == (nil, false, nil), "a guest's page whose browser signed in since")
        #expect(opens(.signedIn(bob), adasPage) == (nil, true, nil), "signed out, then in as another, while the page loaded")
        #expect(opens(.none, adasPage) == (nil, true, nil))
        #expect(opens(.none, guestsPage) == (nil, false, nil))
        #expect(opens(.unavailable("down"), adasPage) == (nil, false, "down"))
        #expect(opens(.unavailable("down"), guestsPage) == (nil, false, nil), "a guest's page needs no sign-in read")
        #expect(opens(.signedIn(ada), guestsPage + "&signed-in=ada") == (nil, false, nil), "not a sign-in's id: a guest's page")
    }
}
