import Foundation
import HTTPTypes
import PseudoTerminal
import ShopLanguages
import Synchronization

/// The page and its files, with the headers a public web terminal sends.
enum WebPage {
    /// The page's policy: scripts, styles, the socket and the sign-in forms' posts to this origin only; no frames. The
    /// only inline script and style are the page's own first files, allowed by their hashes.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self' " + WebAsset.inlineSources(inlineScripts + [afterPaintScript]),
        "style-src 'self' " + WebAsset.inlineSources([inlineStyle]) + " " + WebAsset.inlineSource(WebFirstScreen.style), "connect-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// Sent with every answer, the page's and the refusals' alike.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: contentSecurityPolicy,
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        // Not `no-referrer`: under it a browser sends a form's post with `Origin: null`, and the sign-in's posts are
        // checked by their origin. No other site is told anything; the shop's URLs hold no secret.
        HTTPField.Name("Referrer-Policy")!: "same-origin",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Cross-Origin-Opener-Policy")!: "same-origin",
        HTTPField.Name("Cross-Origin-Resource-Policy")!: "same-origin",
        HTTPField.Name("Permissions-Policy")!: "camera=(), microphone=(), geolocation=(), payment=()",
    ]

    /// The scripts written into the page itself, in order: they open the session and draw its first frames before
    /// xterm.js is loaded (an external script would wait for its fetch and for every style sheet before it).
    static let inlineScripts = ["preview.js", "connect.js"]
    /// Written into a page whose first screen is HTML instead of those: it loads them once that screen is painted.
    static let afterPaintScript = "after-paint.js"
    /// The page's own style, written into it: the terminal's box has its size before the first script measures it.
    static let inlineStyle = "storefront.css"
    /// What connect.js loads once the first frame is painted, in order: xterm.js's style sheet, then the scripts.
    static let terminalFiles = ["xterm.css", "xterm.js", "xterm-addon-fit.js", "storefront.js"]

    /// The parts every page writes the same, made once: the inline style, the inline scripts, the terminal's files.
    private static let inlineStyleHTML = "<style>" + WebAsset.text(of: inlineStyle) + "</style>"
    private static let inlineScriptsHTML = inlineScripts.map { "<script>" + WebAsset.text(of: $0) + "</script>" }.joined(separator: "\n")
    private static let afterPaintHTML =
        #"<script data-scripts=""# + inlineScripts.map(WebAsset.address).joined(separator: " ") + #"">"#
        + WebAsset.text(of: afterPaintScript) + "</script>"
    private static let terminalAddresses = terminalFiles.map(WebAsset.address).joined(separator: " ")

    /// The page: a full-window terminal (relative addresses, so a proxy may mount it under a path). Its first scripts
    /// are inline: connect.js opens the shop's socket as the page is read and preview.js draws the first frames;
    /// xterm.js and storefront.js, preloaded meanwhile, come after the first frame is on the screen. Where the first
    /// screen is HTML, those first scripts come after it is painted (their compiling and running held it back 10 ms).
    /// `account`: who the visitor is signed in as (a sign-out button; its sign-in's public id for the socket to name), or
    /// nil; `signIn`: whether a guest is offered one.
    /// `first`: the session started with the page, its token and first frame, which connect.js draws as it runs.
    static func html(
        title: String, account: WebSignedIn? = nil, signIn: Bool = false, words: PageWords = PageWords(), first: FirstFrame? = nil
    ) -> String {
        let signOut = #"<form method="post" action="sign-out"><button type="submit">"# + words.tr("Sign out") + "</button></form>"
        let bar =
            if let account {
                #"<nav id="account">"# + words.tr("Signed in as \(account.label)") + " " + signOut + "</nav>"
            } else if signIn {
                #"<nav id="account"><a href="sign-in">"# + words.tr("Sign in") + "</a> "
                    + words.tr("to keep your cart, cards and orders in your account") + "</nav>"
            } else {
                ""
            }
        let screen = first?.screen.map { (style: "\n<style>" + WebFirstScreen.style + "</style>", rows: $0) }
        return head(title: title, words: words) + """
            \(inlineStyleHTML)\(screen?.style ?? "")
            </head>
            <body\(bar.isEmpty ? "" : " class=\"with-account\"")>
            \(bar)
            <main id="terminal" aria-label="\(escaped(title))" data-font="\(terminalFont)" \
            data-terminal="\(terminalAddresses)"\(account.map { " data-signed-in=\"\(escaped($0.session))\"" } ?? "")>\(screen?.rows ?? "")</main>
            \(first?.html ?? "")\(screen == nil ? inlineScriptsHTML : afterPaintHTML)
            <div id="status" role="alert" hidden data-lost="\(words.tr("The connection to the shop was lost."))" \
            data-kept="\(words.tr("Your cart is kept while the shop is open."))" \
            data-too-much="\(words.tr("The page sent more at once than the shop takes."))">
            <p id="status-text"></p>
            <button id="reconnect" type="button">\(words.tr("Reconnect"))</button>
            </div>
            <noscript><p class="noscript">\(words.tr("This shop runs in a terminal on this page and needs JavaScript. It is also open over SSH."))</p></noscript>
            </body>
            </html>

            """
    }

    /// A session started with the page: the token its socket adopts it by, the size it was started at, its first
    /// frame's bytes (none where it was not written in time), and that frame as HTML where the shop gave its cells
    /// (`WebFirstScreen`), painted before any script runs.
    struct FirstFrame: Sendable {
        let token: String
        let size: TerminalSize
        let bytes: [UInt8]
        var screen: String? = nil

        /// A script the page does not run (its type is data): its text is the bytes in base64; connect.js reads it.
        var html: String {
            #"<script type="application/octet-stream" id="first-frame" data-session=""# + token + #"" data-columns="\#(size.columns)" "#
                + #"data-rows="\#(size.rows)">"# + Data(bytes).base64EncodedString() + "</script>\n"
        }
    }

    /// The terminal's fonts, named once for the two scripts that measure and draw with them and the first screen's style.
    static let terminalFontFamily = "'DejaVu Sans Mono', 'Noto Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace"
    /// The same, for the terminal box's attribute.
    static let terminalFont = escaped(terminalFontFamily)

    /// Every page's start, up to its title: the shop's page and the sign-in pages.
    static func head(title: String, words: PageWords) -> String {
        """
        <!doctype html>
        <html lang="\(words.lang)">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="icon" href="data:,">
        <title>\(escaped(title))</title>

        """
    }

    static func escaped(_ text: String) -> String { HTMLText.escaped(text) }
}

/// A page's words in the visitor's language, as their browser's `Accept-Language` asks (English where it names none
/// the shop speaks).
struct PageWords: Sendable {
    let translation: Translation

    init(translation: Translation = .english) { self.translation = translation }

    init(_ headers: HTTPFields) { translation = .forLocale(WebFront.locale(of: headers)) }

    /// `words` in the visitor's language, escaped for HTML.
    func tr(_ words: Localized) -> String { WebPage.escaped(translation.string(words)) }

    /// Words in the visitor's language, not escaped: what a form escapes as it shows it.
    func text(_ words: Localized) -> String { translation.string(words) }

    /// A line that arrives as a string (a sign-in's outcome), in the visitor's language where the catalog holds it.
    func line(_ english: String) -> String { translation.string(.lookup(english)) }

    /// The page's `lang`: the language's tag (the test language is English underneath).
    var lang: String { translation.language == .pseudo ? "en" : translation.language.tag }
}

/// The guest's shop pages compressed, one for each language and sign-in offer asked for (a handful), kept for the
/// process.
enum GuestPages {
    private static let kept = Mutex<[String: [UInt8]]>([:])

    /// `page` in gzip: compressed the first time, then as kept; nil where gzip does not make it smaller.
    static func gzipped(_ page: String) -> [UInt8]? {
        if let known = kept.withLock({ $0[page] }) { return known }
        guard let gzipped = WebAsset.gzip(Array(page.utf8)) else { return nil }
        kept.withLock { pages in
            // Bounded: pages differ only by language and the sign-in offer, but a bound costs nothing.
            if pages.count >= 64 { pages.removeAll() }
            pages[page] = gzipped
        }
        return gzipped
    }
}
