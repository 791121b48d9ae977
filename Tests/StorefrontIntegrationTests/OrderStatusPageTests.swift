import Crypto
import Foundation
import ShopIdentity
import ShopModels
import StorefrontTesting
import Testing

/// A receipt's link to its order's page, in real processes: the mail worker signs it under the shop's code key, the
/// browser front opens it without a sign-in, in the visitor's language, and refuses it altered or past its end.
@Suite("The order's status page", .serialized, .ownThreads)
struct OrderStatusPageTests {
    let root = TemporaryDirectory.make().path
    static let codeKey = Data(repeating: 7, count: 32).base64EncodedString()

    func get(_ path: String, port: Int, language: String? = nil) throws -> WebSignInTests.Page {
        var text = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let language { text += "Accept-Language: \(language)\r\n" }
        let answer = try LocalStripe.exchange(text + "\r\n", port: port)
        let parts = answer.components(separatedBy: "\r\n\r\n")
        return WebSignInTests.Page(head: parts[0], body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test func theReceiptsLinkOpensTheOrderWithoutASignInAndOnlyAsWritten() throws {
        let data = root + "/data"
        let environment = ["STOREFRONT_CODE_KEY": Self.codeKey]
        let bought = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["headless", "--keys", "a,down,a,c,enter,p,enter", "--data-dir", data],
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        try #require(bought.status == 0, "\(bought.stderr)")
        let web = try ServeProcess(environment: environment, command: ["web", "--listen", "127.0.0.1:0"], dataDirectory: data)
        let origin = "http://127.0.0.1:\(web.port)"

        // The receipt carries the link, in its text and as the HTML part's button.
        let mail = try JourneyMail(in: root)
        let receipt = try #require(
            try mail.deliver(dataDirectory: data, environment: environment.merging(["STOREFRONT_WEB_ORIGIN": origin]) { $1 }).first)
        let body = receipt["body"] ?? ""
        let link = String(try #require(body.firstMatch(of: /Follow your order, no sign-in needed: (\S+)/)?.1, "\(body)"))
        #expect(link.hasPrefix(origin + "/order/SF-000001?e="))
        #expect(receipt["html"]?.contains(link.replacingOccurrences(of: "&", with: "&amp;")) == true)
        let path = String(link.dropFirst(origin.count))

        // Chromium renders the HTML part at a phone's width: the items, the tax and the link to follow the order.
        let receiptFile = root + "/receipt.html"
        try (receipt["html"] ?? "").write(toFile: receiptFile, atomically: true, encoding: .utf8)
        let browser = try Browser(width: 420, height: 900)
        try browser.must(["op": "open", "url": "file://" + receiptFile])
        for text in ["1 × Dusk Keycap Set", "1 × stdout Mug", "Sales tax", "US-CA", "Follow your order"] {
            try browser.must(["op": "waitPage", "text": text, "timeout": 10])
        }
        let shot = root + "/receipt.png"
        try browser.must(["op": "screenshot", "path": shot])
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(png.count > 10_000 && png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "a picture of the receipt")

        let page = try get(path, port: web.port)
        #expect(page.status == 200, "\(page.head)")
        #expect(page.body.contains("1 × Dusk Keycap Set") && page.body.contains("1 × stdout Mug") && page.body.contains("Paid"), "\(page.body)")
        #expect(page.body.contains("Jane Appleseed, 1 Loop Road") && page.body.contains(#"<a href="../sign-in">Sign in</a>"#))
        #expect(page.head.contains("Referrer-Policy: no-referrer") && page.head.contains("Cache-Control: no-store"), "\(page.head)")
        // Each line shows its product's picture, served by its digest and cached for good.
        let pictures = page.body.matches(of: /<img class="line-picture" src="..\/pictures\/([0-9a-f]{64})"/).map { String($0.1) }
        #expect(pictures.count == 2, "\(page.body)")
        // The receipt shows the same pictures from the web front, by their absolute addresses, for a mail client.
        let mailed = (receipt["html"] ?? "").matches(of: /<img src="([^"]+)\/pictures\/([0-9a-f]{64})" width="48" height="36" alt=""/)
        #expect(mailed.map { String($0.1) } == [origin, origin] && mailed.map { String($0.2) } == pictures, "\(receipt["html"] ?? "")")
        let picture = try get("/pictures/\(try #require(pictures.first))", port: web.port)
        #expect(picture.status == 200 && picture.head.contains("Content-Type: image/png"), "\(picture.head)")
        #expect(
            picture.head.contains("Cache-Control: public, max-age=31536000, immutable") && picture.head.contains("X-Content-Type-Options: nosniff"))
        #expect(picture.head.contains("Cross-Origin-Resource-Policy: cross-origin"), "a mail client's page may show it")
        #expect(picture.body.hasPrefix("\u{89}PNG") || picture.body.utf8.starts(with: [0xEF, 0xBF, 0xBD, 0x50, 0x4E, 0x47]), "a PNG's signature")
        #expect(try get("/pictures/\(String(repeating: "0", count: 64))", port: web.port).status == 404)
        #expect(try get("/pictures/..%2F..%2Fetc%2Fpasswd", port: web.port).status == 404)
        #expect(try get(path, port: web.port, language: "de-DE").body.contains("Bestellung SF-000001"))

        // Altered anywhere, it opens nothing, and says nothing of the order.
        let signature = String(try #require(path.firstMatch(of: /s=([A-Za-z0-9_-]+)/)?.1))
        let flipped = (signature.first == "A" ? "B" : "A") + signature.dropFirst()
        for altered in [
            path.replacingOccurrences(of: "s=\(signature)", with: "s=\(flipped)"), path.replacingOccurrences(of: "SF-000001", with: "SF-000002"),
            path.replacingOccurrences(of: "?e=", with: "?e=9"), "/order/SF-000001",
        ] {
            let refused = try get(altered, port: web.port)
            #expect(refused.status == 404 && !refused.body.contains("Dusk Keycap"), "\(altered): \(refused.head)")
        }
        // Past its end, signed right: gone, with the way to sign in.
        let key = SymmetricKey(data: try #require(Data(base64Encoded: Self.codeKey)))
        let old = Order(
            number: "SF-000001", placedAt: Date().addingTimeInterval(-OrderStatusLinks.lifetime - 60), lines: [],
            totals: CartTotals(subtotal: .zero(.usd), shipping: .zero(.usd), tax: .zero(.usd)), status: .paid, paymentDescription: "",
            shippingMethodLabel: "", shipTo: "")
        let expired = try get(String(OrderStatusLinks(codeKey: key, origin: "").link(for: old)), port: web.port)
        #expect(expired.status == 410 && expired.body.contains("This link has expired. Sign in to see your orders."), "\(expired.head)")
    }
}
