import Foundation
import StorefrontTesting
import Testing

/// The launch, on PostgreSQL with an SSH host and two API hosts on one database: the merchant makes a code of three
/// uses, one a customer; a buyer over SSH types it on the sheet and pays less, and is told the second time that they
/// used it; a buyer through the API uses the second; two buyers on two hosts send their orders for the last use at the
/// same moment, and exactly one gets it while the other is told it is used up and charged nothing, then buys at full
/// price.
@Suite("Journey: the launch", .ownThreads)
struct LaunchJourneyTests {
    @Test func theMerchantMakesACodeBuyersUseItAndTheLastUseIsRaced() async throws {
        let (environment, postgres) = try await APIEndToEndTests.Database.postgresql.shop()
        defer { withExtendedLifetime(postgres) {} }
        let shop = try ServeProcess(environment: environment)
        let hosts = try (0..<2).map { _ in
            try ServeProcess(environment: environment, command: ["api", "--listen", "127.0.0.1:0"], dataDirectory: shop.dataDirectory)
        }
        let cli = ShopCommandLine(dataDirectory: shop.dataDirectory, environment: environment)

        // The merchant's code.
        let made = try cli.run(["discounts", "create", "LAUNCH-20", "--percent", "20", "--uses", "3", "--per-customer", "1"])
        #expect(made.status == 0 && made.stdout == "LAUNCH-20: 20% off; 3 uses, 1 a customer.\n", "\(made)")

        // Over SSH: the code typed on the sheet, in any case; its line and the total after it; paid.
        let key = try shop.makeClientKey("first")
        let terminal = try TmuxTerminal(columns: 120, rows: 34)
        try shop.connect(terminal, key: key)
        func enterCode(_ code: String) throws {
            try terminal.press("a", "c")
            try terminal.waitFor("Your cart")
            try terminal.press("Enter")
            try terminal.waitFor("Pay with Storefront")
            try terminal.press("Down", "Down", "Down", "Down", "Enter")
            try terminal.waitFor("Discount code")
            try terminal.write(code)
            try terminal.press("Enter")
        }
        try enterCode("launch-20")
        let sheet = try terminal.waitFor("Discount LAUNCH-20")
        let figures = amounts(in: sheet)
        let subtotal = try #require(figures["Subtotal"])
        #expect(figures["Discount LAUNCH-20"] == -(subtotal * 20 + 50) / 100, "\(sheet)")
        #expect(sheet.contains("Code      LAUNCH-20 · $"), "\(sheet)")
        try terminal.payOnTheSheet()
        try terminal.press("s")
        try terminal.waitFor("Products")
        try enterCode("LAUNCH-20")
        try terminal.waitFor("You have used that code already.")
        try terminal.press("Escape", "Escape")
        try shop.leave(terminal)

        // Three API buyers, each a key's account with an address and a card, and the same product in the cart.
        var buyers: [String] = []
        for index in 0..<3 {
            let fingerprint = "SHA256:" + String(repeating: "\(index)", count: 43)
            let made = try cli.run(["tokens", "create", "--name", "launch", "--customer", "ssh:" + fingerprint])
            let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try #require(made.status == 0 && token.hasPrefix("sfp_"), "\(made)")
            let http = HTTPClient(port: hosts[index % 2].port)
            let address =
                #"{"name": "Buyer \#(index)", "email": "buyer\#(index)@example.com", "street": "1 Loop Road", "city": "Cupertino", "region": "CA", "postalCode": "95014", "countryCode": "US"}"#
            #expect(try await http.send("POST", "/v1/addresses", token: token, json: address).status == 201)
            #expect(try await http.send("POST", "/v1/cards", token: token, json: #"{"testCard": "card_ok_visa_4242"}"#).status == 201)
            #expect(try await http.send("PUT", "/v1/cart/lines/keycap-dusk", token: token, json: #"{"quantity": 1}"#).status == 200)
            buyers.append(token)
        }
        let code = #"{"discountCode": "LAUNCH-20"}"#
        let second = try await HTTPClient(port: hosts[0].port).send(
            "POST", "/v1/orders", token: buyers[0], json: code, headers: ["Idempotency-Key": "launch-0"])
        #expect(second.status == 201 && (second.json["discount"] as? [String: Any])?["code"] as? String == "LAUNCH-20", "\(second.json)")

        // The last use, raced from two hosts at once.
        let (leftPort, rightPort, leftBuyer, rightBuyer) = (hosts[0].port, hosts[1].port, buyers[1], buyers[2])
        async let left = HTTPClient(port: leftPort).send("POST", "/v1/orders", token: leftBuyer, json: code, headers: ["Idempotency-Key": "left"])
        async let right = HTTPClient(port: rightPort).send("POST", "/v1/orders", token: rightBuyer, json: code, headers: ["Idempotency-Key": "right"])
        let raced = try await [left, right]
        #expect(raced.map(\.status).sorted() == [201, 422], "\(raced.map(\.json))")
        let loser = try #require(raced.firstIndex { $0.status == 422 })
        let told = "\(raced[loser].json)"
        #expect(told.contains("discountCode") && told.contains("That code has been used up."), "\(told)")

        // The one refused buys at full price; the code's uses are the three orders that hold one.
        let full = try await HTTPClient(port: hosts[loser].port).send(
            "POST", "/v1/orders", token: buyers[loser + 1], json: "{}", headers: ["Idempotency-Key": "full-price"])
        #expect(full.status == 201 && (full.json["discount"] == nil || full.json["discount"] is NSNull), "\(full.json)")
        let codes = try #require(try cli.json(["discounts", "list"])["codes"] as? [[String: Any]])
        #expect(codes.first?["uses"] as? Int == 3, "\(codes)")
        let orders = try cli.orders()
        #expect(orders.count == 4, "\(orders.map { $0["number"] ?? "" })")
        #expect(orders.filter { ($0["discount"] as? [String: Any])?["code"] as? String == "LAUNCH-20" }.count == 3, "\(orders)")
        #expect(orders.allSatisfy { $0["status"] as? String == "paid" })
    }
}
