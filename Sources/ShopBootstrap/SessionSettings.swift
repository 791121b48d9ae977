import Foundation
import ShopOpenID
import Synchronization

/// What a server (`serve`, `web`) hands each shop session it starts: the configuration it resolved, typed, made once.
///
/// It travels as JSON in one environment variable, never on a command line (it may name a database with its
/// password). A session that has it reads no config file, no `STOREFRONT_*` setting and no flag of its own, so a
/// config file edited while the server runs cannot give one session other settings than the server's.
public struct SessionSettings: Codable, Equatable, Sendable {
    public static let variable = "STOREFRONT_SESSION_SETTINGS"

    public var configuration: ShopConfiguration
    /// Whether the session may bring the schema up to date; a server did it already, so its sessions only check.
    public var migrates: Bool
    /// How a session mails a sign-in code at once: the server's mail command and sender; nil without one.
    public var codeMail: CodeMailSettings?
    /// The providers a session's terminal signs in with, and where their links open; nil without any.
    public var openID: TerminalOpenIDSettings?

    public init(configuration: ShopConfiguration, migrates: Bool, codeMail: CodeMailSettings? = nil, openID: TerminalOpenIDSettings? = nil) {
        self.configuration = configuration
        self.migrates = migrates
        self.codeMail = codeMail
        self.openID = openID
    }

    /// The settings as the environment variable's value.
    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A value of plain strings, numbers and flags always encodes.
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }

    /// The settings a server handed this process; nil when none did (a shop started by hand).
    ///
    /// The last text read is kept decoded: a session host reads its own (the same every session gets) before it forks,
    /// so a forked session finds them decoded on pages it shares, and never touches a JSON decoder.
    public static func handedOver(in environment: [String: String]) throws(ServiceStartFailure) -> SessionSettings? {
        guard let text = environment[variable], !text.isEmpty else { return nil }
        if let known = lastRead.withLock({ $0 }), known.text == text { return known.settings }
        let settings: SessionSettings
        do {
            settings = try JSONDecoder().decode(SessionSettings.self, from: Data(text.utf8))
        } catch {
            throw .usage("\(variable) is not settings a storefront server made: \(error)")
        }
        lastRead.withLock { $0 = (text, settings) }
        return settings
    }

    private static let lastRead = Mutex<(text: String, settings: SessionSettings)?>(nil)
}

/// The mail command and sender a session sends sign-in codes with: codes cannot wait for the server's mail worker.
public struct CodeMailSettings: Codable, Equatable, Sendable {
    public var command: [String]
    public var fromName: String
    public var fromAddress: String
    public var replyTo: String?
    public var timeoutSeconds: Int

    public init(command: [String], fromName: String, fromAddress: String, replyTo: String?, timeoutSeconds: Int) {
        self.command = command
        self.fromName = fromName
        self.fromAddress = fromAddress
        self.replyTo = replyTo
        self.timeoutSeconds = timeoutSeconds
    }
}

/// The OpenID Connect providers a terminal signs in with, and the shop's web origin where a link opens and the
/// provider calls back (`storefront web`); without an origin only providers with a device endpoint are offered.
public struct TerminalOpenIDSettings: Codable, Equatable, Sendable {
    public var providers: [OpenIDProviderSettings]
    public var webOrigin: String?

    public init(providers: [OpenIDProviderSettings], webOrigin: String?) {
        self.providers = providers
        self.webOrigin = webOrigin
    }
}
