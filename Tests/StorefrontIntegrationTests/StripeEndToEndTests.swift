import Foundation
import GRDB
import ShopStripe
import StorefrontTesting
import Testing

/// The real binary with `--payments stripe` against a running localstripe: in tmux as a shopper
/// sees it, killed mid-purchase, and `serve`'s key check. The secret key is looked for everywhere
/// the shop writes.
@Suite("Stripe end to end", .serialized, .ownThreads)
struct StripeEndToEndTests {
    static func stripeEnvironment(_ server: LocalStripe) -> [String: String] {
        // localstripe takes card numbers, as an account with raw card data access does: the shop's form is used.
        [
            "STOREFRONT_STRIPE_SECRET_KEY": LocalStripe.secretKey, "STOREFRONT_PAYMENTS": "stripe", "STOREFRONT_STRIPE_API_BASE": server.base,
            "STOREFRONT_STRIPE_RAW_CARD_DATA": "on",
        ]
    }

    /// The key, anywhere under `directory` (the database, its WAL, the log).
    static func filesHoldingTheKey(in directory: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return files.filter { name in
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { return false }
            return data.range(of: Data(LocalStripe.secretKey.utf8)) != nil
        }
    }

    @Test func addCardsThroughTheFormAndBuyInATerminal() throws {
        let server = try LocalStripe()
        let terminal = try TmuxTerminal(environment: Self.stripeEnvironment(server))
        let data = terminal.directory.path + "/data"
        try terminal.type("'\(try BuiltProduct.requireStorefront())' --data-dir '\(data)' 2>'\(terminal.directory.path)/stderr'; echo EXIT=$?")
        try terminal.waitForShop()

        // A card Stripe refuses when it is attached: its reason, in place on the form.
        try terminal.press("u")
        try terminal.waitFor("No addresses yet")
        try terminal.press("n")
        try terminal.waitFor("Test mode: 4242 4242 4242 4242 succeeds")
        try terminal.fill(["4000000000000002", "12/30", "123", "Jane Appleseed", "95014"])
        try terminal.waitFor("! Your card was declined.")
        // The form keeps what was typed: only the number changes, to a card that declines when charged.
        for _ in 0..<16 { try terminal.press("BSpace") }
        try terminal.write("4000000000000341")
        try terminal.press("Enter", "Enter", "Enter", "Enter", "Enter")
        try terminal.waitFor("Saved Visa ••0341")
        try terminal.press("d")
        try terminal.fill(["Jane Appleseed", "1 Loop Road", "", "Cupertino", "CA", "95014", "jane@example.com", ""])
        try terminal.waitFor("Saved the address for Jane Appleseed.")

        // Escape alone, then a wait: an Escape and a key sent together read as Alt and the key.
        try terminal.press("Escape")
        try terminal.waitFor("Products")
        try terminal.press("Enter", "a", "c", "Enter")
        #expect(try terminal.waitFor("Pay Storefront").contains("Stripe test mode"), "the header says whose money moves")
        try terminal.press("p", "Enter")
        var screen = try terminal.waitFor("Your card was declined.")
        #expect(screen.contains("cart: 1 item"), "the cart is kept")

        // A card that needs 3-D Secure, then one that pays; each is the newest card on the chooser.
        try Self.addCardAndPay(terminal, "4000002500003155", chooserPosition: 1)
        try terminal.waitFor("which a terminal")
        #expect(try terminal.screen().contains("cannot show; choose another card."))
        try Self.addCardAndPay(terminal, "4242424242424242", chooserPosition: 2)
        screen = try terminal.waitFor("Thank you")
        let number = try #require(screen.firstMatch(of: /Order (SF-\d{6}) is paid\./)?.1)
        let total = try #require(screen.firstMatch(of: /\$(\d+)\.(\d\d)/))
        try terminal.press("q")
        try terminal.waitForExit()

        // Ask the server: one succeeded PaymentIntent, for this order, its amount and currency.
        let succeeded = try server.paymentIntents().filter { $0["status"] as? String == "succeeded" }
        #expect(succeeded.count == 1)
        let intent = try #require(succeeded.first)
        #expect((intent["metadata"] as? [String: String])?["order_number"] == String(number))
        #expect(intent["currency"] as? String == "usd")
        #expect(intent["amount"] as? Int == Int(String(total.1 + total.2)))
        let database = try DatabaseQueue(path: data + "/storefront.sqlite")
        let reference = try database.read { db in
            try String.fetchOne(db, sql: "SELECT payment_reference FROM orders WHERE number = ?", arguments: [String(number)])
        }
        #expect(reference == intent["id"] as? String, "the order holds its PaymentIntent's id")
        let cards = try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM wallet_card") }
        #expect(cards.allSatisfy { ($0["token"] as String).hasPrefix("pm_") }, "the shop keeps PaymentMethod ids")
        for number in ["4242424242424242", "4000000000000341", "4000002500003155", "4000000000000002"] {
            #expect(try database.read { db in try Row.fetchAll(db, sql: "SELECT * FROM wallet_card") }.allSatisfy { !"\($0)".contains(number) })
        }

        // The key is nowhere the shop writes: not the database, the log, stderr or a frame.
        #expect(Self.filesHoldingTheKey(in: data).isEmpty)
        #expect(!(try String(contentsOfFile: terminal.directory.path + "/stderr", encoding: .utf8)).contains(LocalStripe.secretKey))
        #expect(
            !(try terminal.history()).replacingOccurrences(of: "STOREFRONT_STRIPE_SECRET_KEY='\(LocalStripe.secretKey)'", with: "").contains(
                LocalStripe.secretKey))
    }

    /// From the sheet: back to the cart, a card added on the account screen, then the sheet again
    /// with that card chosen (`chooserPosition` rows down the card chooser) and Pay pressed.
    static func addCardAndPay(_ terminal: TmuxTerminal, _ number: String, chooserPosition: Int) throws {
        try terminal.press("Escape")
        try terminal.waitFor("Your cart")
        try terminal.press("u", "n")
        try terminal.fill([number, "12/30", "123", "Jane Appleseed", "95014"])
        try terminal.waitFor("Saved Visa ••\(number.suffix(4))")
        try terminal.press("c", "Enter")
        try terminal.waitFor("Pay Storefront")
        try terminal.press("Enter")
        for _ in 0..<chooserPosition { try terminal.press("Down") }
        try terminal.press("Enter", "p", "Enter")
    }

    /// Adds a card and an address with a headless run, so a later run can go straight to Pay.
    static func prepareWallet(_ binary: String, directory: String, environment: [String: String]) throws {
        let type: (String) -> String = { $0.map { $0 == " " ? "space" : String($0) }.joined(separator: ",") }
        let keys = [
            "u", "n", type("4242424242424242"), "enter", type("12/30"), "enter", type("123"), "enter", type("Jane"), "enter", type("95014"), "enter",
            "d", type("Jane"), "enter", type("1 Loop Road"), "enter", "enter", type("Cupertino"), "enter", type("CA"), "enter", type("95014"),
            "enter",
            type("jane@example.com"), "enter", "enter",
        ].joined(separator: ",")
        let run = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", keys], environment: environment)
        try #require(run.status == 0 && run.stdout.contains("Saved the address for Jane."), "the wallet was prepared: \(run.stdout)\(run.stderr)")
    }

    @Test(
        "killed after the PaymentIntent is filed, or after it is confirmed: one charge at most, no paid order lost",
        arguments: ["after-filing-intent", "after-charging"])
    func killedMidPurchase(step: String) throws {
        let server = try LocalStripe()
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        var environment = ProcessInfo.processInfo.environment.merging(Self.stripeEnvironment(server)) { $1 }
        try Self.prepareWallet(binary, directory: directory, environment: environment)

        environment["STOREFRONT_FAULT"] = "kill-\(step)"
        let killed = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "enter,a,c,enter,p,enter"], environment: environment)
        #expect(killed.status == 128 + 9, "killed by SIGKILL \(step): \(killed.stderr)")

        environment["STOREFRONT_FAULT"] = nil
        environment["STOREFRONT_SETTLE_AFTER_SECONDS"] = "0"
        let restarted = try Subprocess.run(binary, ["headless", "--data-dir", directory, "--keys", "o"], environment: environment)
        #expect(restarted.status == 0, "\(restarted.stderr)")

        let database = try DatabaseQueue(path: directory + "/storefront.sqlite")
        let orders = try database.read { db in try Row.fetchAll(db, sql: "SELECT number, status, payment_reference FROM orders") }
        #expect(orders.count == 1)
        let intents = try server.paymentIntents()
        #expect(intents.count == 1, "one PaymentIntent for the one order")
        #expect(orders.first?["payment_reference"] == intents.first?["id"] as? String)
        switch step {
        case "after-filing-intent":
            #expect(orders.first?["status"] == "voided", "never confirmed: settled as not charged")
            #expect(intents.first?["status"] as? String == "canceled", "and the PaymentIntent can no longer be confirmed")
        default:
            #expect(orders.first?["status"] == "paid", "a charged order is never lost")
            #expect(intents.first?["status"] as? String == "succeeded")
            #expect(restarted.stdout.contains("SF-000001"), "and it is in the shopper's order history")
        }
    }

    @Test func aMalformedOrMissingKeyStopsTheShopBeforeItStarts() throws {
        let binary = try BuiltProduct.requireStorefront()
        let directory = TemporaryDirectory.make().path
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_STRIPE_SECRET_KEY"] = "pk_test_publishable123"
        let malformed = try Subprocess.run(
            binary, ["headless", "--payments", "stripe", "--data-dir", directory, "--keys", "q"], environment: environment)
        #expect(malformed.status == 78)
        #expect(malformed.stderr.contains("does not look like one"))
        #expect(!malformed.stderr.contains("publishable123"), "a refused key is not repeated")

        environment["STOREFRONT_STRIPE_SECRET_KEY"] = nil
        let keyFile = directory + "-key"
        try "sk_test_fromAFile123\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o644)
        let open = try Subprocess.run(
            binary, ["headless", "--payments", "stripe", "--stripe-secret-key-file", keyFile, "--data-dir", directory, "--keys", "q"],
            environment: environment)
        #expect(open.status == 78)
        #expect(open.stderr.contains("can be read by others (mode 644); chmod 600 it"), "\(open.stderr)")

        let none = try Subprocess.run(binary, ["headless", "--payments", "stripe", "--data-dir", directory, "--keys", "q"], environment: environment)
        #expect(none.status == 78)
        #expect(none.stderr.contains("needs a secret key"))
    }

    /// Plain http carries the secret key and card data in clear: only loopback may be spoken to that way.
    @Test func aCleartextAPIBaseOffLoopbackIsRefusedBeforeAnyRequest() throws {
        let binary = try BuiltProduct.requireStorefront()
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_STRIPE_SECRET_KEY"] = "sk_test_neverSentInClear123"
        for base in ["http://api.stripe.com", "http://10.0.0.5:12111", "http://127.example.com", "HTTP://stripe.internal:80"] {
            let refused = try Subprocess.run(
                binary, ["headless", "--payments", "stripe", "--stripe-api-base", base, "--data-dir", TemporaryDirectory.make().path, "--keys", "q"],
                environment: environment)
            #expect(refused.status == 78, "\(base): \(refused.stderr)")
            #expect(refused.stderr.contains("is plain http to another host"), "\(base): \(refused.stderr)")
            #expect(!refused.stderr.contains("neverSentInClear"))
        }
        for base in ["http://localhost:1", "http://127.0.0.1:1", "http://[::1]:1", "https://api.stripe.com"] {
            let url = try #require(URL(string: base))
            #expect((try? StripeClient.validatedBase(url)) == url, "\(base) is allowed")
        }
    }

    /// A Berlin buyer in a German terminal: German words, euro prices in German format, and a PaymentIntent in euros
    /// for the order's total, which keeps the rate it was sold at.
    @Test func aBerlinBuyerPaysInEurosThroughStripe() throws {
        let server = try LocalStripe()
        var environment = Self.stripeEnvironment(server)
        environment["LC_ALL"] = ""
        environment["LANG"] = "de_DE.UTF-8"
        let terminal = try TmuxTerminal(environment: environment)
        let data = terminal.directory.path + "/data"
        try terminal.type("'\(try BuiltProduct.requireStorefront())' --data-dir '\(data)'; echo EXIT=$?")
        let first = try terminal.waitFor("56,00\u{A0}€", timeout: .seconds(30))
        #expect(first.contains("Warenkorb: leer"), "prices in euros, written as German writes them:\n\(first)")
        try terminal.press("u")
        try terminal.waitFor("Ihr Konto")
        try terminal.press("n")
        try terminal.waitFor("Testmodus: 4242 4242 4242 4242 klappt")
        try terminal.fill(["4242424242424242", "12/30", "123", "Lena Vogel", "10115"])
        try terminal.waitFor("Visa ••4242 gespeichert.")
        try terminal.press("d")
        try terminal.waitFor("Adresse hinzufügen")
        try terminal.press("Up", "BSpace", "BSpace")
        try terminal.write("DE")
        try terminal.press("Enter")
        try terminal.waitFor("Postleitzahl")
        try terminal.fill(["Lena Vogel", "Hauptstraße 1", "", "10115", "Berlin", "lena@example.de", ""])
        try terminal.waitFor("Adresse für Lena Vogel gespeichert.")
        try terminal.press("Escape")
        try terminal.waitFor("Produkte")
        try terminal.press("Enter", "a", "c", "Enter")
        let sheet = try terminal.waitFor("Bezahlen bei Storefront")
        #expect(sheet.contains("Stripe-Testmodus") || sheet.contains("Stripe"), "\(sheet)")
        try terminal.press("p", "Enter")
        let thanks = try terminal.waitFor("Vielen Dank!", timeout: .seconds(30))
        let number = String(try #require(thanks.firstMatch(of: /Bestellung (SF-\d{6}) ist bezahlt\./)?.1, "\(thanks)"))
        try terminal.press("q")
        try terminal.waitForExit()

        // Stripe charged euros: the order's total, in cents of a euro; the order keeps its currency and its rate.
        let intent = try #require(try server.paymentIntents().first { $0["status"] as? String == "succeeded" })
        #expect((intent["metadata"] as? [String: String])?["order_number"] == number)
        #expect(intent["currency"] as? String == "eur")
        let database = try DatabaseQueue(path: data + "/storefront.sqlite")
        let order = try #require(
            try database.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT currency, subtotal, shipping, exchange_rate, rates_day, base_total FROM orders WHERE number = ?",
                    arguments: [number])
            })
        #expect(order["currency"] as String == "EUR")
        #expect(intent["amount"] as? Int == (order["subtotal"] as Int) + (order["shipping"] as Int), "VAT is in the prices")
        #expect(order["exchange_rate"] as String? == "0.86430424" && order["rates_day"] as String? == "2026-11-27")
        #expect((order["base_total"] as Int?).map { $0 > 0 } == true)

        // The receipt, in the German the order was bought in: its words, and its euros as German writes them.
        let mail = try JourneyMail(in: terminal.directory.path)
        let received = try mail.deliver(dataDirectory: data)
        let receipt = try #require(received.first, "one receipt")
        #expect(receipt["to"]?.contains("lena@example.de") == true, "\(receipt)")
        #expect(receipt["subject"] == "Ihre Quittung für Bestellung \(number) bei Storefront")
        let body = (receipt["body"] ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        #expect(body.hasPrefix("Guten Tag Lena Vogel,\n"), "\(body)")
        #expect(body.contains("Vielen Dank für Ihre Bestellung."), "\(body)")
        let total = try #require(intent["amount"] as? Int)
        let euros = "\(total / 100),\(String(format: "%02d", total % 100))\u{A0}€"
        #expect(body.contains(try Regex("Summe +\(euros)\n")), "the total in euros, as German writes them:\n\(body)")
        #expect(body.contains("inkl. VAT 19%"), "\(body)")
        #expect(body.contains("Lieferung an: Lena Vogel, Hauptstraße 1, 10115 Berlin, DE"), "\(body)")
        #expect(body.contains("Fragen? Antworten Sie einfach auf diese Nachricht."), "\(body)")
    }

    @Test func serveChecksTheKeyOnceAndSessionsNeverSeeItInTheirArgumentsOrSettings() throws {
        let server = try LocalStripe()
        // localstripe refuses restricted keys: a key Stripe would refuse stops serve at once.
        let binary = try BuiltProduct.requireStorefront()
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_STRIPE_SECRET_KEY"] = "rk_test_refusedByTheServer"
        let refused = try Subprocess.run(
            binary,
            [
                "serve", "--port", "0", "--data-dir", TemporaryDirectory.make().path, "--payments", "stripe", "--stripe-api-base", server.base,
                "--stripe-return-url", "https://shop.example/thanks",
            ], environment: environment)
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("Stripe refused the secret key (401)"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("refusedByTheServer"))

        let serve = try ServeProcess(
            arguments: ["--payments", "stripe", "--stripe-api-base", server.base, "--stripe-return-url", "https://shop.example/thanks"],
            environment: ["STOREFRONT_STRIPE_SECRET_KEY": LocalStripe.secretKey])
        try serve.waitForLog(#/payments: Stripe, Stripe test mode/#)
        let key = try serve.makeClientKey("shopper")
        let terminal = try TmuxTerminal()
        try terminal.type(serve.sshCommand(key: key) + "; echo EXIT=$?")
        try terminal.waitFor("q quit", timeout: .seconds(30))
        let opened = try serve.waitForLog(#/session 1 open: .* pid (\d+).*/#)
        let arguments = try #require(FileManager.default.contents(atPath: "/proc/\(opened.output.1)/cmdline"))
        let session = String(decoding: arguments, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
        #expect(!session.contains(LocalStripe.secretKey), "\(session)")
        // A process of its own shows its command line; a worker, its own title (its sessions' arguments are messages).
        let title = opened.output.0.contains("in a worker") ? "storefront session-worker" : "storefront run"
        #expect(session.trimmingCharacters(in: .whitespaces) == title, "settings travel typed, not as flags: \(session)")
        // The session took the server's settings (Stripe, at localstripe) from what it was handed: its own log says so.
        let log = try String(contentsOfFile: serve.dataDirectory + "/storefront.log", encoding: .utf8)
        #expect(log.contains("payments: Stripe test mode"), "\(log)")
        #expect(!serve.log.contains(LocalStripe.secretKey))
    }
}
