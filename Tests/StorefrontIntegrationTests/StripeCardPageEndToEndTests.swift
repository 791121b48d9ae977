import Foundation
import GRDB
import StorefrontTesting
import Testing

/// The shop on Stripe as an ordinary Stripe account allows it, in a real terminal: cards added on Stripe's page,
/// typed cards refused leading to that page, and a lost answer that never becomes a second charge.
@Suite("Stripe end to end: the card page and lost answers", .ownThreads)
struct StripeCardPageEndToEndTests {
    static let returnURL = "https://shop.example/thanks"

    /// `withReturnURL`: localstripe refuses a confirm that names one ("Unexpected return_url"), so it is left out there.
    static func environment(base: String, rawCardData: Bool, withReturnURL: Bool = true) -> [String: String] {
        var environment = [
            "STOREFRONT_STRIPE_SECRET_KEY": StripeFake.secretKey, "STOREFRONT_PAYMENTS": "stripe", "STOREFRONT_STRIPE_API_BASE": base,
            "STOREFRONT_STRIPE_RAW_CARD_DATA": rawCardData ? "on" : "off",
        ]
        if withReturnURL { environment["STOREFRONT_STRIPE_RETURN_URL"] = returnURL }
        return environment
    }

    /// Starts the shop in `terminal`, on the data directory `data`.
    static func startShop(_ terminal: TmuxTerminal, data: String) throws {
        try terminal.type("'\(try BuiltProduct.requireStorefront())' --data-dir '\(data)' 2>'\(terminal.directory.path)/stderr'; echo EXIT=$?")
        try terminal.waitForShop()
    }

    /// The card page is on screen: its link as text and a QR code; the page's id at the fake.
    static func cardPageShown(_ terminal: TmuxTerminal, _ fake: StripeFake) throws -> String {
        let screen = try terminal.waitFor("Waiting for you to finish on the card page")
        let session = try #require(try fake.objects("checkout_sessions").last)
        let url = try #require(session["url"] as? String)
        #expect(screen.contains(url), "the link, whole, to copy")
        #expect(screen.contains("▀") && screen.contains("█"), "and its QR code")
        return try #require(session["id"] as? String)
    }

    @Test func aCardAddedOnStripesPageIsSavedAndAPurchaseWithItIsPaid() throws {
        let fake = try StripeFake()
        let terminal = try TmuxTerminal(columns: 100, rows: 40, environment: Self.environment(base: fake.base, rawCardData: false))
        try Self.sheetWithACardFromStripesPage(terminal, fake, card: "4242424242424242")
        try terminal.press("p", "Enter")
        try terminal.waitFor("Thank you")
        #expect(try fake.objects("payment_intents").map { $0["status"] as? String } == ["succeeded"])
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
    }

    @Test func escOnTheCardPageClosesItAtStripe() throws {
        let fake = try StripeFake()
        let terminal = try TmuxTerminal(columns: 100, rows: 40, environment: Self.environment(base: fake.base, rawCardData: false))
        try Self.startShop(terminal, data: terminal.directory.path + "/data")
        try terminal.press("u")
        try terminal.waitFor("No addresses yet")
        try terminal.press("n")
        let page = try Self.cardPageShown(terminal, fake)
        try terminal.press("Escape")
        try terminal.waitFor("No cards yet")
        let expiry = try fake.waitForRequest("POST", pathEndingIn: "/\(page)/expire")
        #expect(expiry.status == 200)
        #expect(try fake.objects("checkout_sessions").first { $0["id"] as? String == page }?["status"] as? String == "expired")
    }

    @Test func aTypedCardTheAccountRefusesLeadsToStripesPageAndTheLogSaysWhy() throws {
        let fake = try StripeFake(rawCardData: false)
        let terminal = try TmuxTerminal(columns: 100, rows: 40, environment: Self.environment(base: fake.base, rawCardData: true))
        let data = terminal.directory.path + "/data"
        try Self.startShop(terminal, data: data)
        try terminal.press("u")
        try terminal.waitFor("No addresses yet")
        try terminal.press("n")
        try terminal.waitFor("Test mode: 4242 4242 4242 4242 succeeds")
        try terminal.fill(["4242424242424242", "12/30", "123", "Jane Appleseed", "95014"])
        let page = try Self.cardPageShown(terminal, fake)
        let screen = try terminal.screen()
        #expect(screen.contains("The payment service takes cards on its own page"))
        #expect(!screen.contains("declined") && !screen.contains("incorrect"), "never told as a problem with the card")
        try fake.completeCheckoutSession(page)
        try terminal.waitFor("Saved Visa ••4242")
        let log = try String(contentsOfFile: data + "/storefront.log", encoding: .utf8)
        #expect(log.contains("no raw card data access") && log.contains("Turn stripe-raw-card-data off"), "\(log.suffix(2_000))")
    }

    enum Server: String, CaseIterable { case fake, localstripe }

    @Test("a confirm whose answer is lost, then a new session's Pay: one charge, one paid order", arguments: Server.allCases)
    func aLostAnswerThenANewSessionChargesOnce(server: Server) throws {
        // localstripe takes typed cards; the fake does when told, as an account with raw card data access does.
        let fake = server == .fake ? try StripeFake(rawCardData: true) : nil
        let local = server == .localstripe ? try LocalStripe() : nil
        let upstream = fake?.base ?? local?.base ?? ""
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        var environment = ProcessInfo.processInfo.environment.merging(
            Self.environment(base: upstream, rawCardData: true, withReturnURL: server == .fake)
        ) { $1 }
        try StripeEndToEndTests.prepareWallet(binary, directory: directory, environment: environment)

        // The confirm reaches Stripe and charges; then the network goes, before its answer.
        let vanishing = try StripeFaultProxy(upstream: upstream, rules: ["POST:/confirm$:1:vanish"], honoursIdempotencyKeys: true)
        environment["STOREFRONT_STRIPE_API_BASE"] = vanishing.base
        let first = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "enter,a,c,enter,p,enter"], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("No answer yet on whether the payment went through"), "\(first.stdout.suffix(1_500))")

        // A new session, on a working network, goes straight for Pay.
        environment["STOREFRONT_STRIPE_API_BASE"] = upstream
        let second = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "enter,a,c,enter"], environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("Your earlier payment went through"), "\(second.stdout.suffix(1_500))")

        let intents = try fake?.objects("payment_intents") ?? local?.paymentIntents() ?? []
        #expect(intents.map { $0["status"] as? String } == ["succeeded"], "exactly one PaymentIntent, succeeded")
        let database = try DatabaseQueue(path: directory + "/storefront.sqlite")
        let orders = try database.read { db in try String.fetchAll(db, sql: "SELECT status FROM orders") }
        #expect(orders == ["paid"])
    }

    /// A shop whose wallet holds `card` (a test card number, added on Stripe's page) and an address, with one
    /// product in the cart and the payment sheet up.
    static func sheetWithACardFromStripesPage(_ terminal: TmuxTerminal, _ fake: StripeFake, card: String) throws {
        try startShop(terminal, data: terminal.directory.path + "/data")
        try terminal.press("u")
        try terminal.waitFor("No addresses yet")
        try terminal.press("n")
        try fake.completeCheckoutSession(try cardPageShown(terminal, fake), card: card)
        try terminal.waitFor("Saved Visa ••\(card.suffix(4))")
        try terminal.press("d")
        try terminal.fill(["Jane Appleseed", "1 Loop Road", "", "Cupertino", "CA", "95014", "jane@example.com", ""])
        try terminal.waitFor("Saved the address for Jane Appleseed.")
        try terminal.press("Escape")
        try terminal.waitFor("Products")
        try terminal.press("Enter", "a", "c", "Enter")
        try terminal.waitFor("Pay Storefront")
    }

    /// Pays, and waits for the bank's check on screen: the PaymentIntent waiting for it.
    static func payIntoTheBankCheck(_ terminal: TmuxTerminal, _ fake: StripeFake) throws -> String {
        try terminal.press("p", "Enter")
        let screen = try terminal.waitFor("Your bank wants to check the payment of $68.64")
        let intent = try #require(try fake.objects("payment_intents").last)
        #expect(intent["status"] as? String == "requires_action")
        let id = try #require(intent["id"] as? String)
        #expect(screen.contains("/3ds/\(id)"), "the bank's page, to open")
        #expect(screen.contains("▀"), "and its QR code")
        return id
    }

    @Test func aCardThatNeedsTheBanksCheckIsPaidOnceTheCheckPasses() throws {
        let fake = try StripeFake()
        let terminal = try TmuxTerminal(columns: 100, rows: 40, environment: Self.environment(base: fake.base, rawCardData: false))
        try Self.sheetWithACardFromStripesPage(terminal, fake, card: "4000002500003155")
        let intent = try Self.payIntoTheBankCheck(terminal, fake)
        try fake.authenticate(intent, succeed: true)
        try terminal.waitFor("Thank you", timeout: .seconds(30))
        #expect(try fake.objects("payment_intents").map { $0["status"] as? String } == ["succeeded"])
    }

    @Test func escDuringTheBanksCheckCancelsThePaymentAndChargesNothing() throws {
        let fake = try StripeFake()
        let terminal = try TmuxTerminal(columns: 100, rows: 40, environment: Self.environment(base: fake.base, rawCardData: false))
        try Self.sheetWithACardFromStripesPage(terminal, fake, card: "4000002500003155")
        _ = try Self.payIntoTheBankCheck(terminal, fake)
        try terminal.press("Escape")
        try terminal.waitFor("You canceled your bank's check of this payment", timeout: .seconds(30))
        #expect(try fake.objects("payment_intents").map { $0["status"] as? String } == ["canceled"])
        // The attempt is not an order of the shopper's.
        try terminal.press("Escape")
        try terminal.waitFor("Your cart")
        try terminal.press("o")
        try terminal.waitFor("0 total")
    }

    @Test func aCardThatFailsTheBanksCheckIsNotChargedAndTheSheetSaysSo() throws {
        let fake = try StripeFake()
        let terminal = try TmuxTerminal(columns: 100, rows: 40, environment: Self.environment(base: fake.base, rawCardData: false))
        try Self.sheetWithACardFromStripesPage(terminal, fake, card: "4000002500003155")
        let intent = try Self.payIntoTheBankCheck(terminal, fake)
        try fake.authenticate(intent, succeed: false)
        try terminal.waitFor("Your bank's check of this payment did not succeed", timeout: .seconds(30))
        #expect(try fake.objects("payment_intents").map { $0["status"] as? String } == ["requires_payment_method"])
    }
}
