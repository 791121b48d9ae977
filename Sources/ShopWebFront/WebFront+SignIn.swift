import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ShopLanguages

/// The request context of the browser front: the peer's address, for the limits on codes per client.
struct WebRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: String
    /// The connection's loop, which a session started with its page reads its pty on.
    let loop: any EventLoop

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress ?? "unknown"
        loop = source.channel.eventLoop
    }
}

extension WebFront {
    /// The page and the sign-in routes: `GET /` with the account bar, `GET|POST /sign-in`, `POST /sign-in/code`,
    /// `POST /sign-out`. Every post must come from an allowed origin (SameSite=Lax keeps the cookie off foreign posts
    /// too); bodies are bounded and read before the request's deadline.
    static func addPages(
        to router: Router<WebRequestContext>, settings: WebFrontSettings, front: WebFrontContext, signIn: WebSignIn?,
        allowed: @escaping @Sendable (String?) -> Bool, origins: @escaping @Sendable () -> [WebOrigin]
    ) {
        let title = settings.shopName
        guard let signIn else {
            router.get("/") { request, context in
                shopPage(request, context, front: front, trust: settings.trustForwardedFor) { words, first in
                    WebPage.html(title: title, words: words, first: first)
                }
            }
            return
        }
        let secure = settings.publicOrigins.contains { $0.scheme == "https" }
        let trust = settings.trustForwardedFor
        let providers = signIn.providers
        router.get("/") { request, context in
            let lookup = await signIn.account(in: request.headers)
            if case .unavailable(let problem) = lookup {
                // Neither the account's page nor a guest's: either could be wrong, so the visitor comes back.
                front.refusals.log("sign-in unreadable", "web: a page's sign-in could not be read: \(problem)")
                let words = PageWords(request.headers)
                let body = "<h1>\(WebPage.escaped(title))</h1>\n<p>\(WebPage.escaped(words.text(WebSignIn.cannotCheck)))</p>"
                var answer = html(.serviceUnavailable, WebSignInPage.page(title: title, root: "./", words: words, body: body))
                answer.headers[.retryAfter] = "60"
                return answer
            }
            let account = lookup.signedIn
            return shopPage(request, context, front: front, trust: trust, account: account) { words, first in
                WebPage.html(title: title, account: account, signIn: account == nil, words: words, first: first)
            }
        }
        router.get("/sign-in") { request, _ in
            html(.ok, WebSignInPage.emailForm(title: title, root: "./", words: PageWords(request.headers), providers: providers))
        }
        router.post("/sign-in") { request, context in
            guard allowed(request.headers[.origin]) else { return response(.forbidden, text: "this page's origin may not sign in") }
            let fields = WebSignIn.formFields(try await request.body.collect(upTo: 4_096))
            let email = String((fields["email"] ?? "").prefix(320))
            let client = forwardedAddress(request.headers, peer: context.peer, trustForwardedFor: trust)
            let answer = await signIn.requestCode(email, "web:" + client, WebFront.locale(of: request.headers))
            let words = PageWords(request.headers)
            return answer.isProblem
                ? html(
                    .badRequest,
                    WebSignInPage.emailForm(
                        title: title, root: "./", words: words, error: words.line(answer.line), email: email, providers: providers))
                : html(.ok, WebSignInPage.codeForm(title: title, root: "./", words: words, email: email, line: words.line(answer.line)))
        }
        router.post("/sign-in/code") { request, _ in
            guard allowed(request.headers[.origin]) else { return response(.forbidden, text: "this page's origin may not sign in") }
            let fields = WebSignIn.formFields(try await request.body.collect(upTo: 4_096))
            let email = String((fields["email"] ?? "").prefix(320))
            let words = PageWords(request.headers)
            switch await signIn.checkCode(email, String((fields["code"] ?? "").prefix(32))) {
            case .signedIn(let secret):
                return signedIn(secret, back: "../", secure: secure)
            case .again(let line):
                return html(
                    .unauthorized, WebSignInPage.codeForm(title: title, root: "../", words: words, email: email, line: words.line(line), error: true))
            case .over(let line):
                return html(.unauthorized, WebSignInPage.emailForm(title: title, root: "../", words: words, error: words.line(line), email: email))
            case .terminalSignedIn:
                return html(.ok, WebSignInPage.terminalDone(title: title, root: "../", words: words))
            }
        }
        router.post("/sign-out") { request, _ in
            guard allowed(request.headers[.origin]) else { return response(.forbidden, text: "this page's origin may not sign out") }
            if let secret = WebSignIn.secret(in: request.headers) { await signIn.signOut(secret) }
            return Response(
                status: .seeOther, headers: [.location: "./", .setCookie: WebSignIn.setCookie(nil, secure: secure), .cacheControl: "no-store"])
        }
        addOpenIDRoutes(to: router, title: title, signIn: signIn, secure: secure, allowed: allowed, origins: origins)
    }

    /// `GET /sign-in/oidc/ID` sends the browser to the provider (a top-level redirect) with a cookie binding the
    /// `state` to it; `GET|POST /sign-in/oidc/ID/callback` (Apple posts) takes the code back. A callback whose `state` is
    /// not the one this browser was given, or was used, is refused before the code is sent anywhere.
    static func addOpenIDRoutes(
        to router: Router<WebRequestContext>, title: String, signIn: WebSignIn, secure: Bool, allowed: @escaping @Sendable (String?) -> Bool,
        origins: @escaping @Sendable () -> [WebOrigin]
    ) {
        let root = "../../../"
        router.get("/sign-in/oidc/:provider") { request, context in
            let id = context.parameters.get("provider") ?? ""
            guard let redirect = redirectURI(id, authority: request.head.authority, origins()) else {
                return response(.badRequest, text: "unknown host")
            }
            switch await signIn.startOpenID(id, redirect) {
            case .success(let start):
                return Response(
                    status: .found,
                    headers: [.location: start.url, .setCookie: WebSignIn.setBinding(start.state, secure: secure), .cacheControl: "no-store"])
            case .failure(let problem):
                let words = PageWords(request.headers)
                return html(
                    problem.isUnknownProvider ? .notFound : .serviceUnavailable,
                    WebSignInPage.emailForm(title: title, root: "../../", words: words, error: words.line(problem.message)))
            }
        }
        let callback: @Sendable (Request, WebRequestContext) async throws -> Response = { request, context in
            let id = context.parameters.get("provider") ?? ""
            var fields = request.uri.queryParameters.reduce(into: [String: String]()) { $0[String($1.key)] = String($1.value) }
            if request.method == .post { fields.merge(WebSignIn.formFields(try await request.body.collect(upTo: 16_384))) { $1 } }
            let clear = WebSignIn.setBinding(nil, secure: secure)
            let words = PageWords(request.headers)
            func refused(_ line: String) -> Response {
                var answer = html(.badRequest, WebSignInPage.emailForm(title: title, root: root, words: words, error: line))
                answer.headers[.setCookie] = clear
                return answer
            }
            if let error = fields["error"] { return refused(words.text(Localized("The provider did not sign you in (\(printable(error)))."))) }
            guard let state = fields["state"], let code = fields["code"], state.utf8.count <= 64, code.utf8.count <= 2_048,
                let redirect = redirectURI(id, authority: request.head.authority, origins())
            else { return refused(words.line(WebSignIn.notThisBrowser)) }
            let bound = WebSignIn.cookie(WebSignIn.bindingCookie, in: request.headers)
            switch await signIn.finishOpenID(id, state, bound, code, fields["user"], redirect) {
            case .signedIn(let secret):
                var answer = signedIn(secret, back: root, secure: secure)
                answer.headers.append(HTTPField(name: .setCookie, value: clear))
                return answer
            case .terminalSignedIn:
                var answer = html(.ok, WebSignInPage.terminalDone(title: title, root: root, words: words))
                answer.headers[.setCookie] = clear
                return answer
            case .again(let line), .over(let line):
                return refused(words.line(line))
            }
        }
        router.get("/sign-in/oidc/:provider/callback", use: callback)
        router.post("/sign-in/oidc/:provider/callback", use: callback)
        addTerminalRoutes(to: router, title: title, signIn: signIn, secure: secure, allowed: allowed, origins: origins)
    }

    /// `GET /sign-in/terminal/HANDLE`, the link a terminal shows: a page with the terminal's code to check; its button
    /// (`POST`, from an allowed origin) sends the browser on to the provider the terminal chose, bound as any sign-in.
    static func addTerminalRoutes(
        to router: Router<WebRequestContext>, title: String, signIn: WebSignIn, secure: Bool, allowed: @escaping @Sendable (String?) -> Bool,
        origins: @escaping @Sendable () -> [WebOrigin]
    ) {
        let isHandle: @Sendable (String) -> Bool = { handle in
            (20...64).contains(handle.count) && handle.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
        let notALink = Localized("This is not a terminal's sign-in link.")
        router.get("/sign-in/terminal/:handle") { request, context in
            let handle = context.parameters.get("handle") ?? ""
            let words = PageWords(request.headers)
            guard isHandle(handle) else {
                return html(.notFound, WebSignInPage.emailForm(title: title, root: "../../", words: words, error: words.text(notALink)))
            }
            return html(.ok, WebSignInPage.terminalConfirm(title: title, code: signIn.terminalCode(handle), words: words))
        }
        router.post("/sign-in/terminal/:handle") { request, context in
            guard allowed(request.headers[.origin]) else { return response(.forbidden, text: "this page's origin may not sign in") }
            let handle = context.parameters.get("handle") ?? ""
            let authority = request.head.authority
            let words = PageWords(request.headers)
            guard isHandle(handle) else {
                return html(.notFound, WebSignInPage.emailForm(title: title, root: "../../", words: words, error: words.text(notALink)))
            }
            switch await signIn.startTerminal(handle, { redirectURI($0, authority: authority, origins()) }) {
            case .success(let start):
                return Response(
                    status: .seeOther,
                    headers: [.location: start.url, .setCookie: WebSignIn.setBinding(start.state, secure: secure), .cacheControl: "no-store"])
            case .failure(let problem):
                return html(.badRequest, WebSignInPage.emailForm(title: title, root: "../../", words: words, error: words.line(problem.message)))
            }
        }
    }

    /// The callback's address for provider `id`: on the allowed origin the browser came to (its `Host`), else the
    /// first one configured; nil for a host the shop does not serve.
    static func redirectURI(_ id: String, authority: String?, _ origins: [WebOrigin]) -> String? {
        guard id.count <= 40, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }), !id.isEmpty else { return nil }
        let host = authority?.lowercased()
        let origin = origins.first { origin in host == origin.host + (origin.port.map { ":\($0)" } ?? "") } ?? origins.first
        return origin.map { "\($0)/sign-in/oidc/\(id)/callback" }
    }

    /// A session began: its cookie set, and the browser sent back to the shop.
    static func signedIn(_ secret: String, back: String, secure: Bool) -> Response {
        Response(status: .seeOther, headers: [.location: back, .setCookie: WebSignIn.setCookie(secret, secure: secure), .cacheControl: "no-store"])
    }

    static func html(_ status: HTTPResponse.Status, _ page: String) -> Response {
        response(status, type: "text/html; charset=utf-8", body: ByteBuffer(string: page), cache: "no-store")
    }

    /// The visitor's address: `peer`, or with `trustForwardedFor` the last `X-Forwarded-For` entry (the one the proxy
    /// in front added; earlier ones are whatever the client claimed).
    static func forwardedAddress(_ headers: HTTPFields, peer: String, trustForwardedFor: Bool) -> String {
        guard trustForwardedFor, let name = HTTPField.Name("X-Forwarded-For"),
            let last = headers[values: name].last?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
            !last.isEmpty, last.count <= 45, last.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" })
        else { return peer }
        return last
    }
}
