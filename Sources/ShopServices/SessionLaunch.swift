import Foundation
import ShopBootstrap
import ShopSessions
import ShopStripe
import SystemPackage

/// How a server (`serve`, `web`) starts the shop for one session: the environment each session process gets (its
/// command line is plain `run`), made once from the server's own configuration.
public enum SessionLaunch {
    /// The environment every session starts with, holding the server's configuration as `SessionSettings` (its paths
    /// made absolute, One-Tap and the sandbox's latency put in); checks a Stripe key first.
    public static func shop(
        configuration: ShopConfiguration, dataDirectory: FilePath, latencyMilliseconds: Int?, environment: [String: String],
        codeMail: CodeMailSettings? = nil, openID: TerminalOpenIDSettings? = nil, log: @Sendable (String) -> Void
    ) async throws(ServiceStartFailure) -> [String: String] {
        var settings = configuration
        settings.dataDirectory = dataDirectory
        settings.catalog = configuration.catalog.map(absolute)
        settings.stripeSecretKeyFile = configuration.stripeSecretKeyFile.map(absolute)
        if let latencyMilliseconds { settings.sandboxLatencyMilliseconds = latencyMilliseconds }
        // The key itself reaches a session only through the environment it inherits, never its settings.
        if configuration.payments == .stripe { try await checkStripe(configuration: configuration, environment: environment, log: log) }
        var sessionEnvironment = environment
        // The schema is this process's to migrate; sessions only check it.
        sessionEnvironment[SessionSettings.variable] = SessionSettings(
            configuration: settings, migrates: configuration.database == nil, codeMail: codeMail, openID: openID
        ).encoded()
        // A session's terminal is the client's, described by its pty request, never the server's.
        // The server sends the shoppers' mail itself (one worker), so sessions are given no mail command: only the one
        // for sign-in codes, in their settings, which go at once.
        for name in [
            "TERM", "COLUMNS", "LINES", "NO_COLOR", "COLORFGBG", "TMUX", "TMUX_PANE", "STY", SessionCommand.fingerprintVariable,
            SessionLanguage.variable,
            SessionCommand.guestVariable, SessionCommand.browserGuestVariable, SessionCommand.browserAccountVariable,
            SessionCommand.browserSessionVariable,
            SessionCommand.sandboxSignInVariable, SessionCommand.pageSignInVariable, "STOREFRONT_MAIL_COMMAND",
            "STOREFRONT_OPENID_PROVIDERS", "STOREFRONT_WEB_ORIGIN",
        ] { sessionEnvironment[name] = nil }
        SessionCommand.setLocale(&sessionEnvironment)
        return sessionEnvironment
    }

    /// Asks Stripe once, before any shopper connects, whether it takes the key; refuses with the reason if not.
    private static func checkStripe(
        configuration: ShopConfiguration, environment: [String: String], log: @Sendable (String) -> Void
    ) async throws(ServiceStartFailure) {
        let settings: StripeSettings
        do { settings = try StripeSettings.read(configuration: configuration, environment: environment) } catch {
            throw ServiceStartFailure(.configuration, error.description)
        }
        let client = StripeClient(key: settings.key, base: settings.base, retry: .init(retries: 0))
        let answer: Result<Void, StripeFailure>
        do {
            try await client.verifyKey()
            answer = .success(())
        } catch { answer = .failure(error) }
        try? await client.shutdown()
        switch answer {
        case .success:
            log("payments: Stripe, \(settings.key.mode.label), at \(settings.base)")
        case .failure(.refused(let status, let error)):
            throw ServiceStartFailure(
                .configuration,
                "Stripe refused the secret key (\(status)): \(error.message ?? "no reason given"); check \(StripeSettings.keyVariable) or stripe-secret-key-file"
            )
        case .failure(let error):
            throw ServiceStartFailure(.cannotListen, "cannot reach Stripe at \(settings.base) to check the secret key: \(error)")
        }
    }

    /// Each session holds a socket and two pty descriptors: lift the soft limit to the hard one so
    /// `--max-sessions` is not silently capped by a default of 1024.
    public static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    public static func absolute(_ path: FilePath) -> FilePath {
        path.isAbsolute ? path : FilePath(FileManager.default.currentDirectoryPath).pushing(path)
    }
}
