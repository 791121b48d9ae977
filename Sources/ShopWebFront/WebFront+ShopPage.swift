import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PseudoTerminal

extension WebFront {
    /// The cookie in which the page keeps its terminal's size for the next visit (`120x38`).
    static let terminalSizeCookie = "storefront-terminal"

    /// `GET /`: the shop's page. Where the tab's size is known from its last visit, a session is started for it at
    /// once and the page carries its first frame, drawn as the page is read, and the token its socket adopts it by.
    ///
    /// Order: the head goes out at once (the browser's work on it starts) → the session starts → its first frame, or
    /// `WebFrontLimits.firstFrameWait` → the body. Not for a prefetch or a HEAD, which would start a shop nobody
    /// sees. A guest's page is gzipped; a signed-in one goes as it is (BREACH).
    static func shopPage(
        _ request: Request, _ context: WebRequestContext, front: WebFrontContext, trust: Bool, account: WebSignedIn? = nil,
        page: @escaping @Sendable (PageWords, WebPage.FirstFrame?) -> String
    ) -> Response {
        let words = PageWords(request.headers)
        let gzip = account == nil && WebAsset.acceptsGzip(request.headers[.acceptEncoding])
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .vary: "Accept-Encoding, Cookie"]
        guard front.limits.firstFrameWait > .zero, request.method == .get, !isPrefetch(request.headers), let size = pageTerminalSize(request.headers)
        else {
            let html = page(words, nil)
            guard gzip, let gzipped = GuestPages.gzipped(html) else {
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
            }
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: gzipped)))
        }
        let address = forwardedAddress(request.headers, peer: context.peer, trustForwardedFor: trust)
        let early = EarlySession(address: address, signInSession: account?.session)
        front.early.add(early)
        let session = WebTerminalSession(front: front, address: address, requested: size, signedIn: account, locale: locale(of: request.headers))
        let loop = context.loop
        Task { await session.runEarly(early, loop: loop) }
        if gzip { headers[.contentEncoding] = "gzip" }
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                let frames = await early.firstFrame(within: front.limits.firstFrameWait, afterFirst: front.limits.firstScreenWait)
                // A session refused, or ended, before the page went has nothing for its socket to take: the page offers
                // no token, and its socket starts a session of its own.
                let first =
                    early.isWaitingForSocket
                    ? WebPage.FirstFrame(
                        token: early.token, size: size, bytes: frames.bytes,
                        screen: frames.cells.flatMap { WebFirstScreen.html($0, size: (size.columns, size.rows)) }) : nil
                let html = Array(page(words, first).utf8)
                // Compressed per request (0.8 ms for its 30 KB); zlib fails only without memory, which ends the answer.
                guard let body = gzip ? WebAsset.gzip(html, onlySmaller: false) : html else { throw HTTPError(.internalServerError) }
                try await writer.write(ByteBuffer(bytes: body))
                try await writer.finish(nil)
            })
    }

    /// The size the page's terminal had last time, from its cookie; nil for none or one out of bounds.
    static func pageTerminalSize(_ headers: HTTPFields) -> TerminalSize? {
        let sides = WebSignIn.cookie(terminalSizeCookie, in: headers)?.split(separator: "x") ?? []
        guard sides.count == 2, sides.allSatisfy({ $0.count <= 4 }), let columns = Int(sides[0]), let rows = Int(sides[1]),
            (2...2_000).contains(columns), (1...1_000).contains(rows)
        else { return nil }
        return TerminalSize(columns: columns, rows: rows)
    }

    /// Whether the browser fetches the page ahead of a visit (`Sec-Purpose: prefetch`), which must not start a shop.
    static func isPrefetch(_ headers: HTTPFields) -> Bool {
        [HTTPField.Name("Sec-Purpose"), HTTPField.Name("Purpose")].contains { name in
            name.flatMap { headers[$0] }?.lowercased().contains("prefetch") == true
        }
    }

    /// The page's terminal size from `?columns=C&rows=R`; 80x24 for anything missing or malformed.
    static func requestedSize(_ path: String) -> TerminalSize {
        func side(_ name: String, _ usual: Int) -> Int {
            queryValues(path, name).lazy.compactMap { Int($0) }.first { (1...10_000).contains($0) } ?? usual
        }
        return TerminalSize(columns: side("columns", 80), rows: side("rows", 24))
    }

    /// The session a page's socket adopts, from `?session=TOKEN`: 22 URL-safe characters; nil for none or another.
    static func adoptionToken(_ path: String) -> String? {
        queryValues(path, "session").first { value in
            value.count == 22 && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }.map(String.init)
    }

    /// The sign-in the socket's page was drawn for (`&signed-in=ses_…`, its public id), so a guest's shop, or another
    /// sign-in's, would not be what the page shows; nil for a guest's page or a value no sign-in has.
    static func pageSignIn(_ path: String) -> String? {
        queryValues(path, "signed-in").first { value in
            value.hasPrefix("ses_") && value.count <= 64 && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }.map(String.init)
    }

    /// The values of `name` in `path`'s query, in order (`?a=1&b=2`).
    private static func queryValues(_ path: String, _ name: String) -> [Substring] {
        guard let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
        return query.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return parts.count == 2 && parts[0] == name ? parts[1] : nil
        }
    }
}

/// What a socket's cookie and page say of its sign-in: the account its shop opens as, or why it opens none. A socket opens
/// the shop its page shows: an account's only where the page names the sign-in the cookie holds.
struct SocketSignIn {
    /// The cookie's sign-in where the page was drawn for it; nil for a guest's shop. A guest's page whose browser signed
    /// in since (in another tab, while it loaded) opens a guest's shop under its guest's bar, as an open guest's tab stays
    /// a guest's until it is loaded again.
    let account: WebSignedIn?
    /// The page was drawn for a sign-in that has ended since (signed out elsewhere while the page loaded, perhaps signed
    /// in again as another): its tab is told so, as an open tab would be, rather than handed a guest's shop, or the
    /// other sign-in's, under "Signed in as".
    let signedOutSincePage: Bool
    /// The page was drawn for a sign-in the storage cannot read just now, which is not signed out: the problem.
    let unreadable: String?

    init(_ lookup: WebSignInLookup, path: String) {
        let page = WebFront.pageSignIn(path)
        switch lookup {
        case .signedIn(let signedIn):
            account = page == signedIn.session ? signedIn : nil
            signedOutSincePage = page.map { $0 != signedIn.session } ?? false
        case .none:
            account = nil
            signedOutSincePage = page != nil
        case .unavailable:
            account = nil
            signedOutSincePage = false
        }
        unreadable = if page != nil, case .unavailable(let problem) = lookup { problem } else { nil }
    }
}
