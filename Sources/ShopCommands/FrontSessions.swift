import Foundation
import ShopBootstrap
import ShopCredentialFile
import ShopIdentity
import ShopOpenID
import ShopSSH
import ShopServices
import ShopSessions
import ShopWebFront
import SystemPackage

/// What the SSH and browser fronts need before they listen, whether `serve`, `web` or `up` starts them: the merchant
/// keys read, and each front's session command over the open shop.
extension FrontCommands {
    /// `--admin-keys`' file read; an unreadable one stops the start (exit 78).
    static func adminKeys(_ path: String?) throws -> AdminKeys {
        let admins: AdminKeys
        do {
            admins = try path.map { try AdminKeys.load(SessionLaunch.absolute(FilePath($0)).string) } ?? AdminKeys()
        } catch {
            complain("\(error)")
            throw ExitCodes.configError
        }
        if let path {
            announce("merchant console for \(admins.fingerprints.count) admin key\(admins.fingerprints.count == 1 ? "" : "s") from \(path)")
        }
        return admins
    }

    /// The SSH sessions' command: each session runs the shop with the server's settings; stop its host at the end.
    static func sshSessions(
        _ start: ServerStart, storage: ShopStorage, dataDirectory: FilePath, admins: AdminKeys, openSSHFront: String?,
        environment: [String: String]
    ) async throws -> SessionCommand {
        let sessionEnvironment = try await ServerSessions.environment(
            configuration: start.configuration, dataDirectory: dataDirectory, latencyMilliseconds: start.sandboxLatencyMilliseconds,
            codeMail: try start.mail.codeMailSettings(shop: storage.catalog.shop, environment: environment), openID: start.terminalOpenID,
            environment: environment)
        for provider in start.terminalOpenID?.providers ?? [] {
            announce(
                "sign-in: with \(provider.name) (\(provider.issuer)) from the terminal, by \(start.terminalOpenID?.webOrigin ?? "its device flow only")"
            )
        }
        let command = try start.sessionCommand(
            environment: sessionEnvironment, front: "ssh", adminFingerprints: admins.fingerprints, openSSHFront: openSSHFront)
        return command
    }

    /// The browser sessions' command and the page's sign-in; `settings` gets the shop's name. Stop its host at the end.
    static func webSessions(
        _ start: ServerStart, settings: inout WebFrontSettings, providers: [OpenIDProviderSettings], storage: ShopStorage, dataDirectory: FilePath,
        environment: [String: String]
    ) async throws -> (SessionCommand, WebSignIn?) {
        // Made here once, so sessions only read it: every visitor's Sandbox ID tokens are signed with it.
        do {
            _ = try SandboxIdentityProvider.signingKey(
                in: FileCredentialRepository(path: FileCredentialRepository.defaultPath(environment: environment)))
        } catch {
            announce("sign-in is off for visitors: \(error)")
        }
        var shopConfiguration = start.configuration
        // The page's terminal is dark (storefront.css), so the shop need not ask: a question's answer that arrives
        // after the shop stopped waiting (a busy host) would otherwise be read as keys (its "?" opens the help).
        shopConfiguration.theme = "dark"
        let codeMail = try start.mail.codeMailSettings(shop: storage.catalog.shop, environment: environment)
        var sessionEnvironment = try await ServerSessions.environment(
            configuration: shopConfiguration, dataDirectory: dataDirectory, latencyMilliseconds: start.sandboxLatencyMilliseconds,
            codeMail: codeMail, environment: environment)
        // The page's terminal is xterm.js at 256 colours, which draws no pixels: a mosaic (or the art, where the
        // operator asks for it), so the shop need not ask the terminal what it draws.
        if sessionEnvironment["STOREFRONT_PICTURES"] != "art" { sessionEnvironment["STOREFRONT_PICTURES"] = "mosaic" }
        // With a mail command, visitors sign in on the page by an emailed code, and with each provider named; the
        // cookie holds the session.
        var signIn: WebSignIn?
        let codeMailer = MailChoice.codeMailer(codeMail, shop: storage.catalog.shop)
        if codeMailer != nil || !providers.isEmpty {
            do {
                let key = try AccountSignIn.codeKey(
                    environment: environment,
                    credentials: FileCredentialRepository(path: FileCredentialRepository.defaultPath(environment: environment)))
                let clients = providers.map { OpenIDClient(settings: $0, transport: HTTPOpenIDTransport()) }
                signIn = WebAccountSignIn.make(
                    storage: storage, mailer: codeMailer, codeKey: key, providers: clients, log: { announce($0, level: .warning) })
                if let codeMail { announce("sign-in: by a code mailed with \(codeMail.command.joined(separator: " "))") }
                for provider in providers { announce("sign-in: with \(provider.name) (\(provider.issuer))") }
            } catch {
                announce("sign-in is off for visitors: the code key cannot be read: \(error)")
            }
        }
        settings.shopName = storage.catalog.shop.name
        if settings.offersSandboxSignIn { sessionEnvironment[SessionCommand.sandboxSignInVariable] = SessionCommand.localSandboxSignIn }
        if signIn != nil { sessionEnvironment[SessionCommand.pageSignInVariable] = "on" }
        return (try start.sessionCommand(environment: sessionEnvironment, front: "web"), signIn)
    }
}
