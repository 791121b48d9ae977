import Foundation
import HTTPTypes
import Hummingbird
import ShopLanguages

/// An order's status page, which a receipt's signed link opens without a sign-in: what was bought, where it stands,
/// its history and tracking, and a way to sign in for more. The words come already in the visitor's language.
public struct WebOrderPage: Sendable, Equatable {
    public var number: String
    public var status: String
    /// Each line: "2 × Dusk Keycap Set" and its amount.
    public var lines: [Line]
    public var total: String
    public var shipTo: String
    /// Each step: when (UTC, in the visitor's format) and what happened.
    public var history: [Line]
    /// A tracking page for each parcel shipped.
    public var tracking: [String]

    public struct Line: Sendable, Equatable {
        public var left: String
        public var right: String
        /// The digest of the product's picture (its variant's where it has its own), for an order's line; nil for none.
        public var picture: String?
        public init(_ left: String, _ right: String, picture: String? = nil) {
            self.left = left
            self.right = right
            self.picture = picture
        }
    }

    public init(number: String, status: String, lines: [Line], total: String, shipTo: String, history: [Line], tracking: [String]) {
        self.number = number
        self.status = status
        self.lines = lines
        self.total = total
        self.shipTo = shipTo
        self.history = history
        self.tracking = tracking
    }
}

/// What a status link comes to.
public enum WebOrderAnswer: Sendable, Equatable {
    case page(WebOrderPage)
    /// Signed, and past its end: the visitor signs in to see the order.
    case expired
    /// Altered, made up, or for no order: said the same, so a link says nothing of orders it does not open.
    case notFound
    /// The shop cannot read its orders just now.
    case unavailable
}

/// Reads a status link's order: its number, end and signature as the link gives them, and the visitor's locale.
public typealias WebOrderStatus = @Sendable (_ number: String, _ expires: String, _ signature: String, _ locale: String?) async -> WebOrderAnswer

extension WebFront {
    /// `GET /order/NUMBER?e=END&s=SIGNATURE`: the page a receipt's link opens; 404 for a link that is not one, 410
    /// for one past its end, never cached, and never sent on as a referrer.
    static func addOrderStatus(to router: Router<WebRequestContext>, title: String, status: @escaping WebOrderStatus) {
        router.get("/order/:number") { request, context in
            let words = PageWords(request.headers)
            let number = String((context.parameters.get("number") ?? "").prefix(40))
            let query = request.uri.queryParameters
            let answer = await status(
                number, String((query["e"] ?? "").prefix(12)), String((query["s"] ?? "").prefix(64)), WebFront.locale(of: request.headers))
            var response: Response
            switch answer {
            case .page(let page): response = html(.ok, WebOrderStatusPage.page(page, title: title, words: words))
            case .expired:
                response = html(
                    .gone,
                    WebOrderStatusPage.message(
                        words.text(Localized("This link has expired. Sign in to see your orders.")), title: title, words: words))
            case .notFound:
                response = html(
                    .notFound, WebOrderStatusPage.message(words.text(Localized("This is not a link to an order.")), title: title, words: words))
            case .unavailable:
                response = html(
                    .serviceUnavailable,
                    WebOrderStatusPage.message(
                        words.text(Localized("The shop cannot show this order just now. Try again in a minute.")), title: title, words: words))
            }
            // The link is the key to the page: no other site learns it from a click away.
            response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            return response
        }
    }
}

/// The status page's HTML.
enum WebOrderStatusPage {
    static func page(_ page: WebOrderPage, title: String, words: PageWords) -> String {
        let rows = page.lines.map { line in
            // A picture's address is its digest, checked where it was read: hexadecimal digits alone.
            let picture = line.picture.map { #"<img class="line-picture" src="../pictures/\#($0)" alt="" width="64" height="48"> "# } ?? ""
            return "<tr><td>\(picture)\(WebPage.escaped(line.left))</td><td class=\"amount\">\(WebPage.escaped(line.right))</td></tr>"
        }
        let history = page.history.map { "<li><span class=\"when\">\(WebPage.escaped($0.left))</span> \(WebPage.escaped($0.right))</li>" }
        let tracking = page.tracking.map { link in
            "<p><a href=\"\(WebPage.escaped(link))\" rel=\"noopener noreferrer\">\(words.tr("Track the parcel"))</a></p>"
        }
        return WebSignInPage.page(
            title: title, root: "../", words: words,
            body: """
                <h1>\(words.tr("Order \(page.number)"))</h1>
                <p class="status">\(WebPage.escaped(page.status))</p>
                <table class="order-lines">
                \(rows.joined(separator: "\n"))
                <tr class="total"><td>\(words.tr("Total"))</td><td class="amount">\(WebPage.escaped(page.total))</td></tr>
                </table>
                <p>\(words.tr("Ships to: \(page.shipTo)."))</p>
                \(tracking.joined(separator: "\n"))
                <h2>\(words.tr("History"))</h2>
                <ul class="history">
                \(history.joined(separator: "\n"))
                </ul>
                <p><a href="../sign-in">\(words.tr("Sign in"))</a> \(words.tr("to see all your orders, change an address, or ask for a refund."))</p>
                """)
    }

    static func message(_ line: String, title: String, words: PageWords) -> String {
        WebSignInPage.page(
            title: title, root: "../", words: words,
            body: """
                <p>\(WebPage.escaped(line))</p>
                <p><a href="../sign-in">\(words.tr("Sign in"))</a> · <a href="../">\(words.tr("Back to the shop"))</a></p>
                """)
    }
}
