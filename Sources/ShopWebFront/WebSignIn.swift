import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

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
    }

    /// The line to show after an email is entered: the same whatever came of it, or a problem with the email.
    public var requestCode: @Sendable (_ email: String, _ client: String) async -> (line: String, isProblem: Bool)
    public var checkCode: @Sendable (_ email: String, _ code: String) async -> CodeOutcome
    /// The account id and its label (the email) a session secret holds now; nil when it does not (ended, expired, unknown).
    public var account: @Sendable (_ secret: String) async -> (id: String, label: String)?
    public var signOut: @Sendable (_ secret: String) async -> Void

    public init(
        requestCode: @escaping @Sendable (_ email: String, _ client: String) async -> (line: String, isProblem: Bool),
        checkCode: @escaping @Sendable (_ email: String, _ code: String) async -> CodeOutcome,
        account: @escaping @Sendable (_ secret: String) async -> (id: String, label: String)?,
        signOut: @escaping @Sendable (_ secret: String) async -> Void
    ) {
        self.requestCode = requestCode
        self.checkCode = checkCode
        self.account = account
        self.signOut = signOut
    }

    /// The cookie's name; its value is the session's secret, never in a URL.
    public static let cookieName = "storefront_session"
    /// 30 days, as the session's own sliding lifetime.
    static let cookieMaxAge = 30 * 24 * 60 * 60

    /// The account the request's cookie holds a live session of, if any.
    func account(in headers: HTTPFields) async -> (id: String, label: String)? {
        guard let secret = Self.secret(in: headers) else { return nil }
        return await account(secret)
    }

    /// The session secret in a request's `Cookie` header, if any; a cookie longer than any the shop sets is none.
    static func secret(in headers: HTTPFields) -> String? {
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == cookieName, parts[1].utf8.count <= 64 { return String(parts[1]) }
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

/// The sign-in pages: plain forms, posted to this origin only.
enum WebSignInPage {
    static func emailForm(title: String, error: String? = nil, email: String = "") -> String {
        page(
            title: title,
            body: """
                <h1>Sign in to \(WebPage.escaped(title))</h1>
                <p>Enter your email: a code is sent there, and signs you in to its account.</p>
                \(error.map { "<p class=\"error\" role=\"alert\">\(WebPage.escaped($0))</p>" } ?? "")
                <form method="post" action="sign-in">
                <label>Email <input name="email" type="email" autocomplete="email" required value="\(WebPage.escaped(email))"></label>
                <button type="submit">Send code</button>
                </form>
                <p><a href="./">Back to the shop</a></p>
                """)
    }

    static func codeForm(title: String, email: String, line: String, error: Bool = false) -> String {
        page(
            title: title,
            body: """
                <h1>Enter your code</h1>
                <p\(error ? " class=\"error\" role=\"alert\"" : "")>\(WebPage.escaped(line))</p>
                <form method="post" action="sign-in/code">
                <input type="hidden" name="email" value="\(WebPage.escaped(email))">
                <label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>
                <button type="submit">Sign in</button>
                </form>
                <p><a href="sign-in">Use another email</a></p>
                """)
    }

    static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="icon" href="data:,">
        <title>\(WebPage.escaped(title))</title>
        <link rel="stylesheet" href="assets/storefront.css">
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
