import ShopBootstrap
import ShopSessions
import ShopWebFront

/// The shop in a browser tab: one session process per visitor, run by the front's session command. What
/// `storefront web` runs.
///
/// Order of calls: `start` (bound, or refused) → it serves → `stop` (drains the sessions).
public enum WebShopService {
    public static func start(
        _ settings: WebFrontSettings, command: SessionCommand, signIn: WebSignIn? = nil, mailPages: WebMailPages = WebMailPages(),
        log: @escaping @Sendable (String) -> Void
    ) async throws(ServiceStartFailure) -> RunningWebShop {
        let listening = BoundPort()
        let front = WebFront(settings: settings, command: command, signIn: signIn, mailPages: mailPages, log: log) { port in
            listening.bound(port)
        }
        let (serving, bound) = await listening.serve { try await front.run() }
        switch bound {
        case .success(let port):
            let shown = ListenAddress(host: settings.host, port: port)
            log(
                "listening on \(shown); open http://\(shown)/ (pages from \(front.allowedOrigins.map(\.description).joined(separator: ", ")) may open the shop)"
            )
            return RunningWebShop(front: front, serving: serving, port: port)
        case .failure(let failure):
            throw ServiceStartFailure(.cannotListen, "cannot listen on \(ListenAddress(host: settings.host, port: settings.port)): \(failure)")
        }
    }
}

/// The browser front while it serves.
public struct RunningWebShop: Sendable {
    let front: WebFront
    let serving: Task<Void, any Error>
    /// The port it listens on (the one picked, for port 0).
    public let port: Int

    public var openSessions: Int { front.openSessions }

    /// New session limits from now on: open sessions are kept.
    public func update(_ limits: WebFrontLimits) { front.update(limits) }

    /// Tells every session the shop is closing and waits up to the drain timeout; returns how many were still open.
    public func stop() async -> Int {
        let left = await front.stop()
        _ = await serving.result
        return left
    }
}
