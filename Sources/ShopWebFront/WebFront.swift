import Foundation
import HTTPGuards
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import LiveObjects
import Logging
import NIOCore
import PseudoTerminal
import ServiceLifecycle
import ShopLanguages
import ShopSessions
import Synchronization

/// What every browser session shares: how to start the shop, who may come in, and where lines go.
struct WebFrontContext: Sendable {
    let command: SessionCommand
    let admission: AdmissionControl
    let limits: WebFrontLimits
    let sessions: WebSessionRegistry
    /// Sessions started with their pages, waiting for the pages' sockets.
    let early: EarlySessions
    let refusals: RefusalLogThrottle
    let log: @Sendable (String) -> Void
}

/// `storefront web`: the shop in a browser. `GET /` is a full-window terminal page; its script opens a WebSocket
/// on `/session`, and each socket gets its own guest session of the shop on a pty.
///
/// Plain HTTP on the address given; in production it listens on loopback behind a reverse proxy that ends TLS
/// (docs/web.md). Order of calls: `init` → `run` (returns once stopped) → `stop` from elsewhere: sessions are told the
/// shop is closing and their shops asked to end (each killed 5 s later if it lingers), then the listener stops.
public final class WebFront: Sendable {
    /// The WebSocket's path, relative to the page.
    public static let sessionPath = "/session"

    private let group: ServiceGroup
    private let context: WebFrontContext
    private let signIn: WebSignIn?
    private let origins: AllowedOrigins
    private let guards: HTTPGuards

    /// `log` gets a line per session and refusal; `listening` the bound port once it listens.
    public init(
        settings: WebFrontSettings, command: SessionCommand, signIn: WebSignIn? = nil, mailPages: WebMailPages = WebMailPages(),
        log: @escaping @Sendable (String) -> Void, listening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        let limits = settings.limits
        let admission = AdmissionControl(limits: Self.admissionLimits(limits), front: "web")
        let context = WebFrontContext(
            command: command, admission: admission, limits: limits, sessions: WebSessionRegistry(), early: EarlySessions(),
            refusals: RefusalLogThrottle(write: log), log: log
        )
        let origins = AllowedOrigins(settings.publicOrigins)
        self.context = context
        self.signIn = signIn
        self.origins = origins
        let allowed: @Sendable (String?) -> Bool = { origin in
            guard let origin, let parsed = WebOrigin(origin) else { return false }
            return origins.set.withLock { $0.contains(parsed) }
        }

        let router = Router(context: WebRequestContext.self)
        router.add(middleware: SecurityHeaders())
        Self.addPages(to: router, settings: settings, front: context, signIn: signIn, allowed: allowed) {
            origins.set.withLock { $0.sorted { $0.description < $1.description } }
        }
        if let orderStatus = mailPages.orderStatus { Self.addOrderStatus(to: router, title: settings.shopName, status: orderStatus) }
        if let pictures = mailPages.pictures { Self.addPictures(to: router, pictures: pictures) }
        if let links = mailPages.subscriptionLinks {
            Self.addSubscriptionLinks(to: router, title: settings.shopName, allowed: allowed, links: links)
        }
        Self.addAssets(to: router)
        router.get(RouterPath(Self.sessionPath)) { request, _ in
            // Only reached when the socket was not opened: a foreign page, or no upgrade asked for.
            allowed(request.headers[.origin])
                ? Self.response(.upgradeRequired, text: "this address takes a WebSocket from the shop's page")
                : Self.response(.forbidden, text: "this page's origin may not open the shop")
        }
        router.get("/healthz") { _, _ in Self.response(.ok, text: "ok") }

        let trustForwardedFor = settings.trustForwardedFor
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: HTTP1Channel.Configuration(idleTimeout: TimeAmount(limits.connectionIdleTimeout)),
            ws: WebSocketServerConfiguration(maxFrameSize: limits.maxMessageBytes, autoPing: .enabled(timePeriod: .seconds(30)))
        )
        let refusedOrigin: @Sendable (String, String) -> Void = { origin, address in
            context.refusals.log("refused origin", "web: refused a socket from \(address): Origin \(Self.printable(origin)) is not allowed")
        }
        let shouldUpgrade:
            @Sendable (HTTPRequest, any Channel, Logger) async throws -> ShouldUpgradeResult<
                WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
            > = { request, channel, _ in
                guard let path = request.path, path.split(separator: "?", maxSplits: 1).first.map(String.init) == Self.sessionPath else {
                    return .dontUpgrade
                }
                let address = Self.clientAddress(request, channel: channel, trustForwardedFor: trustForwardedFor)
                // The gate in front answers a foreign page 403 before this is asked; this is the second lock.
                guard allowed(request.headerFields[.origin]) else {
                    refusedOrigin(request.headerFields[.origin] ?? "missing", address)
                    return .dontUpgrade
                }
                // The cookie's session, checked afresh at every socket against the sign-in its page names (one ended on
                // any host, or a guest's page, opens no account's shop) and watched while the tab is open.
                let socketSignIn = SocketSignIn(await signIn?.account(in: request.headerFields) ?? .none, path: path)
                let (account, signedOutSincePage) = (socketSignIn.account, socketSignIn.signedOutSincePage)
                let locale = Self.locale(of: request.headerFields)
                let requested = Self.requestedSize(path)
                let session = WebTerminalSession(front: context, address: address, requested: requested, signedIn: account, locale: locale)
                let loop = channel.eventLoop
                // The session started with this page, where the page names it and it was started for this visitor.
                let early = Self.adoptionToken(path).flatMap {
                    context.early.take($0, address: address, signInSession: account?.session, endedSincePage: signedOutSincePage)
                }
                return .upgrade([.cacheControl: "no-store"]) { inbound, outbound, _ in
                    if let unreadable = socketSignIn.unreadable { return await session.tellSignInUnreadable(outbound, problem: unreadable) }
                    if let early {
                        let (done, finished) = AsyncStream.makeStream(of: Void.self)
                        let adopting = AdoptingSocket(
                            inbound: inbound, outbound: outbound, requested: requested, signedOutSincePage: signedOutSincePage, done: finished)
                        if early.attach(adopting) {
                            for await _ in done {}
                            return
                        }
                    }
                    if signedOutSincePage { return await session.tellSignedOutSincePage(outbound) }
                    await session.run(inbound: inbound, outbound: outbound, loop: loop)
                }
            }
        let guards = HTTPGuards(
            HTTPGuardLimits(
                requestDeadline: TimeAmount(limits.connectionIdleTimeout),
                connectionsPerAddress: settings.trustForwardedFor ? limits.maxConnections : limits.connectionsPerAddress,
                connections: limits.maxConnections
            ),
            name: "web", log: { line in context.refusals.log("http guard", line) }
        )
        self.guards = guards
        let server = HTTPServerBuilder { responder in
            OriginGatedChannel(
                inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: configuration, shouldUpgrade: shouldUpgrade), guards: guards
            ) {
                OriginGate(allowed: allowed, headDeadline: TimeAmount(limits.connectionIdleTimeout), refused: refusedOrigin)
            }
        }

        let quiet = Self.quietLogger
        let app = Application(
            router: router, server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(settings.host, port: settings.port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections)
            ),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                origins.set.withLock { if $0.isEmpty { $0 = Set(WebOrigin.loopback(port: port)) } }
                // The page's files gzipped and its inline parts hashed now, on a thread of their own, so the first
                // visitor does not wait for them.
                Thread.detachNewThread { _ = (WebAsset.all.count, WebPage.contentSecurityPolicy) }
                await listening(port)
            },
            logger: quiet
        )
        group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: app)], logger: quiet))
    }

    /// Serves until stopped; throws when the address cannot be listened on. While it serves, the open tabs' sign-ins
    /// are watched.
    public func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            if let signIn {
                let sessions = context.sessions
                tasks.addTask { await Self.watchSignIns(signIn, sessions: sessions) }
            }
            try await group.run()
            tasks.cancelAll()
        }
    }

    /// Twice a second until cancelled: ends every open tab whose sign-in has ended since it opened (signed out there,
    /// in another tab, everywhere from any front, on any host of the database) or now holds another account (a merge).
    /// One read covers every open tab; a read that fails ends nothing.
    static func watchSignIns(_ signIn: WebSignIn, sessions: WebSessionRegistry, every interval: Duration = .milliseconds(500)) async {
        while true {
            do { try await Task.sleep(for: interval) } catch { return }
            let open = sessions.signedIn()
            guard !open.isEmpty, let live = await signIn.liveSessions(Array(Set(open.map(\.signedIn.session)))) else { continue }
            for (number, signedIn) in open {
                switch live[signedIn.session] {
                case nil: sessions.end(number, .signedOut)
                case signedIn.id?: break
                case _?: sessions.end(number, .accountMerged)
                }
            }
        }
    }

    /// The origins allowed to open a session: those configured, or, when none were, the loopback ones of the bound port.
    public var allowedOrigins: [WebOrigin] { origins.set.withLock { $0.sorted { $0.description < $1.description } } }

    /// Every visitor is a guest to the admission: the front's sessions are its guests.
    static func admissionLimits(_ limits: WebFrontLimits) -> ServeLimits {
        ServeLimits(
            maxSessions: 0, connectionsPerSourcePerMinute: limits.connectionsPerMinute, idleTimeout: limits.idleTimeout,
            drainTimeout: limits.drainTimeout, maxGuests: limits.maxSessions, guestsPerAddress: limits.sessionsPerAddress)
    }

    /// New session limits from now on (SIGHUP): how many at once, per address and per minute. Open sessions are kept.
    public func update(_ limits: WebFrontLimits) {
        context.admission.update(Self.admissionLimits(limits))
    }

    /// Browser sessions open now.
    public var openSessions: Int { context.admission.openGuestSessions }

    /// Refuses new sessions, tells open ones the shop is closing and asks their shops to end (each session's reaper
    /// kills a shop 5 s after asking), waits up to the drain timeout, then stops listening and lets `run` return.
    /// Returns how many sessions were still open at the deadline.
    @discardableResult
    public func stop() async -> Int {
        context.admission.startDraining()
        context.early.abandonAll()
        context.sessions.endAll(.shutdown)
        let deadline = ContinuousClock.now + context.limits.drainTimeout
        var left = context.sessions.count
        while left > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            left = context.sessions.count
        }
        // A connection that sent no request would hold the shutdown until its deadline: it is closed now.
        guards.closeWaiting()
        await group.triggerGracefulShutdown()
        return left
    }

    /// The visitor's address: the socket's peer, or with `trustForwardedFor` the last `X-Forwarded-For` entry (the
    /// one the proxy in front added; earlier ones are whatever the client claimed).
    static func clientAddress(_ request: HTTPRequest, channel: any Channel, trustForwardedFor: Bool) -> String {
        forwardedAddress(request.headerFields, peer: channel.remoteAddress?.ipAddress ?? "unknown", trustForwardedFor: trustForwardedFor)
    }

    /// A client-chosen header as one short line of visible ASCII, for the log.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(100).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    }

    static func response(_ status: HTTPResponse.Status, text: String) -> Response {
        response(status, type: "text/plain; charset=utf-8", body: ByteBuffer(string: text + "\n"), cache: "no-store")
    }

    static func response(_ status: HTTPResponse.Status, type: String, body: ByteBuffer, cache: String) -> Response {
        Response(status: status, headers: [.contentType: type, .cacheControl: cache], body: ResponseBody(byteBuffer: body))
    }

    /// Hummingbird's own messages: errors only, in the server's log; the front logs each session itself.
    private static let quietLogger: Logger = {
        // Through the process's log handler: a server's is the shop's own log (text or JSON lines).
        var logger = Logger(label: "storefront.web")
        logger.logLevel = .error
        return logger
    }()
}

/// Adds the page's security headers to every answer, including the router's own 404s.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            response = WebFront.response(error.status, text: error.status.reasonPhrase)
        }
        // A page that asks for a stricter referrer policy (the order's page, whose address is its key) keeps it.
        for field in WebPage.securityHeaders where response.headers[field.name] == nil { response.headers[field.name] = field.value }
        return response
    }
}

/// The origins that may open a session; filled in once the port is known when none were configured.
private final class AllowedOrigins: Sendable, LiveObject {
    let set: Mutex<Set<WebOrigin>>

    init(_ origins: [WebOrigin]) {
        set = Mutex(Set(origins))
    }
}

extension WebFront: LiveObject {}

extension WebFront {
    /// The locale a browser's `Accept-Language` asks for among the shop's languages (`de-AT`), which chooses the shop's
    /// words and formats; nil for none.
    static func locale(of headers: HTTPFields) -> String? { Language.localeTag(fromHeader: headers[.acceptLanguage]) }
}
