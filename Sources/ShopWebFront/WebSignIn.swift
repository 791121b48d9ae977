import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ShopLanguages

/// What the browser's sign-in pages need of the shop: codes by email, and the sessions a cookie holds.
///
/// Order of calls: `requestCode` (the page answers the same whatever came of it) → `checkCode` (a new session's secret
/// for the cookie, or why not) → `account` at every page and socket, by the cookie's secret → `signOut`.
public struct WebSignIn: Sendable {
    public enum CodeOutcome: Sendable, Equatable {
        /// The session's secret, for the cookie.
        case signedIn(secret: String)
        /// The code was not right: ask again, with this line.
        case again(String)
        /// The code is spent: start over, with this line.
        case over(String)
        /// The sign-in was a terminal's: it goes on there, and this browser keeps no session.
        case terminalSignedIn
    }

    /// The line to show after an email is entered: the same whatever came of it, or a problem with the email.
    public var requestCode: @Sendable (_ email: String, _ client: String, _ locale: String?) async -> (line: String, isProblem: Bool)
    public var checkCode: @Sendable (_ email: String, _ code: String) async -> CodeOutcome
    /// The account a session secret holds now, none (ended, expired, unknown), or that it cannot be read just now.
    public var account: @Sendable (_ secret: String) async -> WebSignInLookup
    public var signOut: @Sendable (_ secret: String) async -> Void
    /// Of sign-ins `ids`, the live ones with the account each holds now; nil when that cannot be read just now. Asked
    /// twice a second for the open tabs, so a sign-out on any host reaches them.
    public var liveSessions: @Sendable (_ ids: [String]) async -> [String: String]?
    /// The OpenID Connect providers offered beside the code, by id and name.
    public var providers: [(id: String, name: String)] = []
    /// Where to send the browser to sign in with provider `id`, and the `state` to bind to it; or why not.
    public var startOpenID: @Sendable (_ id: String, _ redirectURI: String) async -> Result<(url: String, state: String), OpenIDStartError> = {
        _, _ in
        .failure(OpenIDStartError(message: "No such provider."))
    }
    /// The provider called back with `code` for `state` (and, from Apple, the `user` it posts on a first sign-in);
    /// `bound` is the state this browser's binding cookie holds, which must be the same before anything is spent.
    public var finishOpenID:
        @Sendable (_ id: String, _ state: String, _ bound: String?, _ code: String, _ user: String?, _ redirectURI: String) async -> CodeOutcome = {
            _, _, _, _, _, _ in .over("No such provider.")
        }

    /// Sends the browser that opened a terminal's link (its `handle`) to the provider the terminal chose, with the
    /// `state` to bind to it; `redirect` makes the callback's address for a provider's id.
    public var startTerminal:
        @Sendable (_ handle: String, _ redirect: @Sendable (String) -> String?) async -> Result<(url: String, state: String), OpenIDStartError> = {
            _, _ in
            .failure(OpenIDStartError(message: "Signing in a terminal is off here."))
        }

    /// The code a terminal shows beside its link (`handle`), for the page to show too.
    public var terminalCode: @Sendable (_ handle: String) -> String = { _ in "" }

    /// What a callback whose state this browser was not given is told.
    public static let notThisBrowser = "This sign-in was not started in this browser. Start it again."

    public init(
        requestCode: @escaping @Sendable (_ email: String, _ client: String, _ locale: String?) async -> (line: String, isProblem: Bool),
        checkCode: @escaping @Sendable (_ email: String, _ code: String) async -> CodeOutcome,
        account: @escaping @Sendable (_ secret: String) async -> WebSignInLookup,
        signOut: @escaping @Sendable (_ secret: String) async -> Void,
        liveSessions: @escaping @Sendable (_ ids: [String]) async -> [String: String]?
    ) {
        self.requestCode = requestCode
        self.checkCode = checkCode
        self.account = account
        self.signOut = signOut
        self.liveSessions = liveSessions
    }

    /// Why a sign-in with a provider could not start, in the visitor's words.
    public struct OpenIDStartError: Error, Sendable {
        public var message: String
        /// No provider has the id asked for (404), rather than one that cannot be reached now (503).
        public var isUnknownProvider: Bool
        public init(message: String, isUnknownProvider: Bool = false) {
            self.message = message
            self.isUnknownProvider = isUnknownProvider
        }
    }

    /// What a visitor is told when a provider or the shop's own storage fails: the detail goes to the log, never here.
    public static func tryAgainLater(_ who: String) -> String { "\(who) cannot be reached just now. Try again in a few minutes." }

    /// The cookie that binds a provider's callback to the browser that started it; its value is the `state`.
    static let bindingCookie = "storefront_oidc"

    /// The binding cookie for `state` (nil clears it): 10 minutes, for the provider's paths only. Cross-site where it
    /// must come back on Apple's posted answer (`SameSite=None`, which takes `Secure`).
    static func setBinding(_ state: String?, secure: Bool) -> String {
        let value = state.map { "\(bindingCookie)=\($0); Max-Age=600" } ?? "\(bindingCookie)=; Max-Age=0"
        return value + "; Path=/sign-in/oidc/; HttpOnly" + (secure ? "; SameSite=None; Secure" : "; SameSite=Lax")
    }

    /// The cookie's name; its value is the session's secret, never in a URL.
    public static let cookieName = "storefront_session"
    /// 30 days, as the session's own sliding lifetime.
    static let cookieMaxAge = 30 * 24 * 60 * 60

    /// The account the request's cookie holds a live session of: none without a cookie.
    func account(in headers: HTTPFields) async -> WebSignInLookup {
        guard let secret = Self.secret(in: headers) else { return .none }
        return await account(secret)
    }

    /// What a visitor whose sign-in could not be read is told: not signed out, and not handed a guest's shop.
    static let cannotCheck = Localized("The shop cannot check your sign-in just now. Reconnect in a minute.")

    /// The session secret in a request's `Cookie` header, if any; a cookie longer than any the shop sets is none.
    static func secret(in headers: HTTPFields) -> String? { cookie(cookieName, in: headers) }

    /// The value of cookie `name`, if any; one longer than any the shop sets is none.
    static func cookie(_ name: String, in headers: HTTPFields) -> String? {
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name, parts[1].utf8.count <= 64 { return String(parts[1]) }
            }
        }
        return nil
    }

    /// The `Set-Cookie` for `secret`: HttpOnly, SameSite=Lax, Secure behind https, 30 days; nil secret clears it.
    static func setCookie(_ secret: String?, secure: Bool) -> String {
        let value = secret.map { "\(cookieName)=\($0); Max-Age=\(cookieMaxAge)" } ?? "\(cookieName)=; Max-Age=0"
        return value + "; Path=/; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// The fields of a form body (`application/x-www-form-urlencoded`), each value decoded.
    static func formFields(_ body: ByteBuffer) -> [String: String] {
        let text = String(buffer: body)
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }
}

/// What a cookie's session secret holds now.
public enum WebSignInLookup: Sendable, Equatable {
    case signedIn(WebSignedIn)
    /// No live sign-in: none given, or ended, expired or unknown.
    case none
    /// The storage could not be read just now; the problem is for the log.
    case unavailable(String)

    var signedIn: WebSignedIn? { if case .signedIn(let signedIn) = self { signedIn } else { nil } }
}

/// A browser's sign-in as a cookie holds it: the account, its label (the email), and the sign-in's id (never its secret).
public struct WebSignedIn: Sendable, Equatable {
    public var id: String
    public var label: String
    /// The sign-in's public id (`ses_…`), which the front watches while a tab of it is open.
    public var session: String

    public init(id: String, label: String, session: String) {
        self.id = id
        self.label = label
        self.session = session
    }
}

/// The sign-in pages: plain forms, posted to this origin only. `root` leads from the page's path back to the shop's
/// (`./` from `/sign-in`, `../` from `/sign-in/code`), so the pages work wherever a proxy mounts the shop.
enum WebSignInPage {
    static func emailForm(
        title: String, root: String, words: PageWords, error: String? = nil, email: String = "", providers: [(id: String, name: String)] = []
    ) -> String {
        let links = providers.map {
            #"<p><a class="provider" href=""# + root + "sign-in/oidc/" + WebPage.escaped($0.id) + #"">"# + words.tr("Sign in with \($0.name)")
                + "</a></p>"
        }
        return page(
            title: title, root: root, words: words,
            body: """
                <h1>\(words.tr("Sign in to \(title)"))</h1>
                <p>\(words.tr("Enter your email: a code is sent there, and signs you in to its account."))</p>
                \(error.map { "<p class=\"error\" role=\"alert\">\(WebPage.escaped($0))</p>" } ?? "")
                <form method="post" action="\(root)sign-in">
                <label>\(words.tr("Email")) <input name="email" type="email" autocomplete="email" required value="\(WebPage.escaped(email))"></label>
                <button type="submit">\(words.tr("Send code"))</button>
                </form>
                \(links.joined(separator: "\n"))
                <p><a href="\(root)">\(words.tr("Back to the shop"))</a></p>
                """)
    }

    static func codeForm(title: String, root: String, words: PageWords, email: String, line: String, error: Bool = false) -> String {
        page(
            title: title, root: root, words: words,
            body: """
                <h1>\(words.tr("Enter your code"))</h1>
                <p\(error ? " class=\"error\" role=\"alert\"" : "")>\(WebPage.escaped(line))</p>
                <form method="post" action="\(root)sign-in/code">
                <input type="hidden" name="email" value="\(WebPage.escaped(email))">
                <label>\(words.tr("Code")) <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>
                <button type="submit">\(words.tr("Sign in"))</button>
                </form>
                <p><a href="\(root)sign-in">\(words.tr("Use another email"))</a></p>
                """)
    }

    /// The page a terminal's link opens: its code, to check against the terminal's, and the button that goes on.
    static func terminalConfirm(title: String, code: String, words: PageWords) -> String {
        page(
            title: title, root: "../../", words: words,
            body: """
                <h1>\(words.tr("Sign in your terminal"))</h1>
                <p>\(words.tr("A terminal of \(title) asks to sign in. Go on only if it is yours and it shows this code:"))</p>
                <p class="code">\(WebPage.escaped(code))</p>
                <form method="post" action="">
                <button type="submit">\(words.tr("Continue"))</button>
                </form>
                <p>\(words.tr("Not yours, or another code? Close this page: nothing happens."))</p>
                """)
    }

    /// The page after a terminal's sign-in: it goes on there.
    static func terminalDone(title: String, root: String, words: PageWords) -> String {
        page(
            title: title, root: root, words: words,
            body: """
                <h1>\(words.tr("Signed in"))</h1>
                <p>\(words.tr("Your terminal is signed in now. You can close this page."))</p>
                """)
    }

    static func page(title: String, root: String, words: PageWords, body: String) -> String {
        WebPage.head(title: title, words: words) + """
            <link rel="stylesheet" href="\(root)\(WebAsset.address("storefront.css"))">
            </head>
            <body class="form-page">
            <main>
            \(body)
            </main>
            </body>
            </html>

            """
    }
}
