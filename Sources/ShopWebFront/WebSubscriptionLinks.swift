import Foundation
import HTTPTypes
import Hummingbird
import ShopLanguages

/// A renewal reminder's link as the browser front reads it: the subscription, the action, the link's signed parts as
/// given, the visitor's locale, and whether it is the confirming POST.
public struct WebSubscriptionLinkRequest: Sendable, Equatable {
    public var id: String
    /// The path's last part: `skip`, `pause`, `cancel` or `stop-reminders`.
    public var action: String
    public var period: String
    public var expires: String
    public var signature: String
    public var locale: String?
    /// A POST: the visitor pressed the page's button, or a mail client sent RFC 8058's one-click.
    public var confirmed: Bool

    public init(id: String, action: String, period: String, expires: String, signature: String, locale: String?, confirmed: Bool) {
        self.id = id
        self.action = action
        self.period = period
        self.expires = expires
        self.signature = signature
        self.locale = locale
        self.confirmed = confirmed
    }
}

/// What a reminder's link comes to; the words come in the visitor's language.
public enum WebSubscriptionAnswer: Sendable, Equatable {
    /// Before anything changes, the page asks: what will happen, and the button's label.
    case ask(question: String, button: String)
    case done(String)
    /// It cannot be done as the subscription stands (renewed already, canceled): why.
    case refused(String)
    /// Signed, and past its end.
    case expired
    /// Altered, made up, or for no subscription: said the same, so a link says nothing of subscriptions it does not open.
    case notFound
    case unavailable
}

/// Reads and carries out a reminder's link.
public typealias WebSubscriptionLinks = @Sendable (WebSubscriptionLinkRequest) async -> WebSubscriptionAnswer

extension WebFront {
    /// `GET /subscription/ID/ACTION?p=&e=&s=` asks (a GET changes nothing, so a mail scanner that follows links changes
    /// nothing); `POST` to the same address does it: from the page's own form (its `Origin` must be the shop's), or
    /// RFC 8058's one-click (`List-Unsubscribe=One-Click`, no origin) for stopping reminders alone. A foreign page's
    /// POST gets 403 however it came by the link.
    static func addSubscriptionLinks(
        to router: Router<WebRequestContext>, title: String, allowed: @escaping @Sendable (String?) -> Bool, links: @escaping WebSubscriptionLinks
    ) {
        @Sendable func request(_ request: Request, _ context: WebRequestContext, fields: [String: String], confirmed: Bool)
            -> WebSubscriptionLinkRequest
        {
            let query = request.uri.queryParameters
            func part(_ name: String, _ most: Int) -> String { String((fields[name] ?? query[Substring(name)].map(String.init) ?? "").prefix(most)) }
            return WebSubscriptionLinkRequest(
                id: String((context.parameters.get("id") ?? "").prefix(64)), action: String((context.parameters.get("action") ?? "").prefix(20)),
                period: part("p", 9), expires: part("e", 12), signature: part("s", 64), locale: WebFront.locale(of: request.headers),
                confirmed: confirmed)
        }
        router.get("/subscription/:id/:action") { incoming, context in
            let asked = request(incoming, context, fields: [:], confirmed: false)
            return page(await links(asked), asked: asked, title: title, words: PageWords(incoming.headers))
        }
        router.post("/subscription/:id/:action") { incoming, context in
            let fields = WebSignIn.formFields(try await incoming.body.collect(upTo: 4_096))
            let oneClick = fields["List-Unsubscribe"] == "One-Click"
            let asked = request(incoming, context, fields: fields, confirmed: true)
            if oneClick, asked.action == "stop-reminders", incoming.headers[.origin] == nil {
                // A mail client's one-click: no page to show, only whether it was done.
                return switch await links(asked) {
                case .done, .refused: response(.ok, text: "reminders stopped")
                case .expired: response(.gone, text: "this link has expired")
                case .notFound, .ask: response(.notFound, text: "not a link to a subscription")
                case .unavailable: response(.serviceUnavailable, text: "try again in a minute")
                }
            }
            guard allowed(incoming.headers[.origin]) else { return response(.forbidden, text: "this page's origin may not change a subscription") }
            return page(await links(asked), asked: asked, title: title, words: PageWords(incoming.headers))
        }
    }

    /// The page for `answer`: the question and its form, what was done, or why not; never cached, never a referrer.
    private static func page(_ answer: WebSubscriptionAnswer, asked: WebSubscriptionLinkRequest, title: String, words: PageWords) -> Response {
        let root = "../../"
        func message(_ line: String, signIn: Bool = true) -> String {
            WebSignInPage.page(
                title: title, root: root, words: words,
                body: "<p>\(WebPage.escaped(line))</p>\n<p>"
                    + (signIn ? "<a href=\"\(root)sign-in\">\(words.tr("Sign in"))</a> · " : "")
                    + "<a href=\"\(root)\">\(words.tr("Back to the shop"))</a></p>")
        }
        var response: Response
        switch answer {
        case .ask(let question, let button):
            response = html(
                .ok,
                WebSignInPage.page(
                    title: title, root: root, words: words,
                    body: """
                        <p>\(WebPage.escaped(question))</p>
                        <form method="post" action="\(WebPage.escaped(asked.action))">
                        <input type="hidden" name="p" value="\(WebPage.escaped(asked.period))">
                        <input type="hidden" name="e" value="\(WebPage.escaped(asked.expires))">
                        <input type="hidden" name="s" value="\(WebPage.escaped(asked.signature))">
                        <button type="submit">\(WebPage.escaped(button))</button>
                        </form>
                        <p><a href="\(root)">\(words.tr("Back to the shop"))</a></p>
                        """))
        case .done(let line): response = html(.ok, message(line, signIn: false))
        case .refused(let line): response = html(.conflict, message(line))
        case .expired: response = html(.gone, message(words.text(Localized("This link has expired. Sign in to change your subscription."))))
        case .notFound: response = html(.notFound, message(words.text(Localized("This is not a link to a subscription."))))
        case .unavailable:
            response = html(
                .serviceUnavailable, message(words.text(Localized("The shop cannot change this just now. Try again in a minute.")), signIn: false))
        }
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return response
    }
}

/// The pages the shop's mails link to: a receipt's order status, a reminder's subscription links; each nil where the
/// shop cannot check its links (no code key).
public struct WebMailPages: Sendable {
    public var orderStatus: WebOrderStatus?
    public var subscriptionLinks: WebSubscriptionLinks?
    /// The products' pictures, which the order pages and the HTML receipts show.
    public var pictures: WebPictures?

    public init(orderStatus: WebOrderStatus? = nil, subscriptionLinks: WebSubscriptionLinks? = nil, pictures: WebPictures? = nil) {
        self.orderStatus = orderStatus
        self.subscriptionLinks = subscriptionLinks
        self.pictures = pictures
    }
}
