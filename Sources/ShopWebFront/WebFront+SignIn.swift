import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The request context of the browser front: the peer's address, for the limits on codes per client.
struct WebRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}

extension WebFront {
    /// The page and the sign-in routes: `GET /` with the account bar, `GET|POST /sign-in`, `POST /sign-in/code`,
    /// `POST /sign-out`. Every post must come from an allowed origin (SameSite=Lax keeps the cookie off foreign posts
    /// too); bodies are bounded and read before the request's deadline.
    static func addPages(
        to router: Router<WebRequestContext>, settings: WebFrontSettings, signIn: WebSignIn?, allowed: @escaping @Sendable (String?) -> Bool
    ) {
        let title = settings.shopName
        let plain = WebPage.html(title: title)
        guard let signIn else {
            router.get("/") { _, _ in html(.ok, plain) }
            return
        }
        let secure = settings.publicOrigins.contains { $0.scheme == "https" }
        let trust = settings.trustForwardedFor
        router.get("/") { request, _ in
            let account = await signIn.account(in: request.headers)
            return html(.ok, WebPage.html(title: title, account: account?.label, signIn: account == nil))
        }
        router.get("/sign-in") { _, _ in html(.ok, WebSignInPage.emailForm(title: title)) }
        router.post("/sign-in") { request, context in
            guard allowed(request.headers[.origin]) else { return response(.forbidden, text: "this page's origin may not sign in") }
            let fields = WebSignIn.formFields(try await request.body.collect(upTo: 4_096))
            let email = String((fields["email"] ?? "").prefix(320))
            let client = forwardedAddress(request.headers, peer: context.peer, trustForwardedFor: trust)
            let answer = await signIn.requestCode(email, "web:" + client)
            return html(
                answer.isProblem ? .badRequest : .ok,
                answer.isProblem
                    ? WebSignInPage.emailForm(title: title, error: answer.line, email: email)
                    : WebSignInPage.codeForm(title: title, email: email, line: answer.line))
        }
        router.post("/sign-in/code") { request, _ in
            guard allowed(request.headers[.origin]) else { return response(.forbidden, text: "this page's origin may not sign in") }
            let fields = WebSignIn.formFields(try await request.body.collect(upTo: 4_096))
            let email = String((fields["email"] ?? "").prefix(320))
            switch await signIn.checkCode(email, String((fields["code"] ?? "").prefix(32))) {
            case .signedIn(let secret):
                return Response(
                    status: .seeOther,
                    headers: [.location: "../", .setCookie: WebSignIn.setCookie(secret, secure: secure), .cacheControl: "no-store"])
            case .again(let line):
                return html(.unauthorized, WebSignInPage.codeForm(title: title, email: email, line: line, error: true))
            case .over(let line):
                return html(.unauthorized, WebSignInPage.emailForm(title: title, error: line, email: email))
            }
        }
        router.post("/sign-out") { request, _ in
            guard allowed(request.headers[.origin]) else { return response(.forbidden, text: "this page's origin may not sign out") }
            if let secret = WebSignIn.secret(in: request.headers) { await signIn.signOut(secret) }
            return Response(
                status: .seeOther, headers: [.location: "./", .setCookie: WebSignIn.setCookie(nil, secure: secure), .cacheControl: "no-store"])
        }
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
