import Foundation
import ShopApplication
import ShopLanguages
import ShopPorts
import ShopSandbox
import SystemPackage

/// Which payment provider the shop takes payments with.
public enum PaymentsChoice: String, CaseIterable, Codable, Sendable {
    case sandbox, stripe
}

/// The shop's own settings (`[shop]` in the config file), typed: what every command that opens a shop runs on.
///
/// They are read with every other setting by `ServiceConfiguration` (ShopCommands), from the one table of settings
/// (`ServiceKey.all`), so the file, the environment and the flags are checked alike; `set` types each value.
public struct ShopConfiguration: Equatable, Codable, Sendable {
    public var catalog: FilePath?
    public var dataDirectory: FilePath?
    public var logLevel: String?
    /// One-Tap per entry point; nil keeps the default (on).
    public var oneTapCart: Bool?
    public var oneTapProduct: Bool?
    public var theme: String?
    /// The language for shoppers whose terminal or browser names none the shop speaks; nil is English.
    public var language: Language?
    public var sandboxLatencyMilliseconds: Int?
    /// The merchant's exchange rates, an ECB-format XML file; nil reads the rates bundled with the shop.
    public var rates: FilePath?
    /// How many days old the rates may be before they are named as stale; nil is 7.
    public var ratesMaxAgeDays: Int?
    /// Whether the guest's empty wallet is filled with the sandbox test cards and sample addresses.
    public var sandboxTestCards: Bool?
    /// Whether clicks and the wheel work in the terminal (on unless switched off).
    public var mouse: Bool?
    /// The payment provider: sandbox (the default) or stripe.
    public var payments: PaymentsChoice?
    /// A file holding the Stripe secret key, read through the credential file's owner-only checks.
    public var stripeSecretKeyFile: FilePath?
    /// Where Stripe's API is; tests point it at a local server.
    public var stripeAPIBase: URL?
    /// Where Stripe sends the shopper back to after its card page or a card check (3-D Secure).
    public var stripeReturnURL: URL?
    /// Cards typed in the shop are sent to Stripe: only for an account with raw card data access (off by default).
    public var stripeRawCardData: Bool?
    /// A `postgres://` URL: the shop keeps everything in that PostgreSQL instead of SQLite.
    public var database: URL?

    public init() {}

    /// Where the shop keeps its files: the setting, else `defaultDataDirectory`.
    public func dataDirectory(environment: [String: String]) -> FilePath {
        dataDirectory ?? Self.defaultDataDirectory(environment: environment)
    }

    /// Where the configuration keeps the shop: its PostgreSQL, or SQLite in `dataDirectory`.
    public func storagePlace(dataDirectory: FilePath) -> StoragePlace {
        database.map { .postgres($0) } ?? .sqlite(directory: dataDirectory)
    }

    /// The One-Tap flags: both entry points on unless switched off.
    public var featureFlags: StaticFeatureFlags {
        var enabled: Set<FeatureFlag> = []
        if oneTapCart ?? true { enabled.insert(.oneTapCart) }
        if oneTapProduct ?? true { enabled.insert(.oneTapProduct) }
        return StaticFeatureFlags(enabled: enabled)
    }

    /// Applies a One-Tap setting for both entry points ("on", "off", "cart", "product", "cart,product").
    public mutating func applyOneTap(_ value: String) throws {
        let flags = try StaticFeatureFlags.parseOneTap(value)
        oneTapCart = flags.contains(.oneTapCart)
        oneTapProduct = flags.contains(.oneTapProduct)
    }

    /// "on"/"off" and their usual spellings.
    public static func parseSwitch(_ value: String) -> Bool? {
        switch value.lowercased() {
        case "on", "true", "yes", "1": true
        case "off", "false", "no", "0": false
        default: nil
        }
    }

    /// Where the config file is looked for: `STOREFRONT_CONFIG`, else the user's config directory.
    public static func fileURL(environment: [String: String]) -> URL {
        if let path = environment["STOREFRONT_CONFIG"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? ProcessUser.home) + "/.config"
        return URL(fileURLWithPath: base).appendingPathComponent("storefront/config")
    }

    /// The default data directory: `$XDG_DATA_HOME/storefront`, else `~/.local/share/storefront`.
    public static func defaultDataDirectory(environment: [String: String]) -> FilePath {
        let base =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : FilePath($0) }
            ?? FilePath(environment["HOME"] ?? ProcessUser.home).appending(".local/share")
        return base.appending("storefront")
    }

    /// The config file's text, nil when there is none; anything else that keeps it from being read is an error,
    /// because a file silently skipped would drop its `data-dir` and send orders elsewhere.
    public static func readFile(_ url: URL) throws -> String? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw ConfigurationError(source: url.path, line: nil, message: "cannot be read: \(String(cString: strerror(errno)))")
        }
        // stat follows a link to its target: a link to a file is fine, a link to a FIFO or a directory is not.
        if info.st_mode & S_IFMT == S_IFLNK, stat(url.path, &info) != 0 {
            throw ConfigurationError(source: url.path, line: nil, message: "is a link to \(String(cString: strerror(errno)).lowercased())")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw ConfigurationError(source: url.path, line: nil, message: "is a directory, not a config file")
        default: throw ConfigurationError(source: url.path, line: nil, message: "is not a regular file")
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ConfigurationError(
                source: url.path, line: nil, message: "cannot be read: \((error as NSError).localizedFailureReason ?? error.localizedDescription)")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            let line = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .firstIndex { String(validating: $0, as: UTF8.self) == nil }.map { $0 + 1 }
            throw ConfigurationError(source: url.path, line: line, message: "is not valid UTF-8")
        }
        return text
    }

}

extension ShopConfiguration {
    /// What a secret that does not parse is told as, in place of its value.
    public static let unparsedSecret =
        "the value given does not parse and is not shown (it may hold a password). In a password, write # as %23, @ as %40, [ as %5B, ] as %5D, / as %2F and a space as %20; in a file, quote the value"

    /// Sets the shop's setting `key` (its name in `[shop]`) from `text`, typed as it is used: paths as `FilePath`,
    /// addresses as `URL`. The file, the environment and the flags all come through here, so each refuses the same text.
    public mutating func set(_ key: String, to text: String, source: String, line: Int?) throws {
        func refuse(_ message: String) -> ConfigurationError { ConfigurationError(source: source, line: line, message: message) }
        func on() throws -> Bool {
            guard let on = Self.parseSwitch(text) else { throw refuse("\(key) must be on or off, got \"\(text)\"") }
            return on
        }
        switch key {
        case "catalog": catalog = FilePath(text)
        case "data-dir": dataDirectory = FilePath(text)
        case "stripe-secret-key-file": stripeSecretKeyFile = FilePath(text)
        case "log-level": logLevel = text
        case "theme": theme = text
        case "rates": rates = FilePath(text)
        case "rates-max-age-days":
            guard let days = Int(text), (1...365).contains(days) else {
                throw refuse("rates-max-age-days must be a whole number of days from 1 to 365, got \"\(text.prefix(40))\"")
            }
            ratesMaxAgeDays = days
        case "language":
            guard let chosen = Language.all.first(where: { $0.tag == text }) else {
                throw refuse("language must be one of \(Language.all.map(\.tag).joined(separator: ", ")), got \"\(text.prefix(40))\"")
            }
            language = chosen
        case "one-tap":
            do { try applyOneTap(text) } catch { throw refuse("\(error)") }
        case "one-tap-cart": oneTapCart = try on()
        case "one-tap-product": oneTapProduct = try on()
        case "sandbox-test-cards": sandboxTestCards = try on()
        case "mouse": mouse = try on()
        case "stripe-raw-card-data": stripeRawCardData = try on()
        case "payments": payments = try PaymentsChoice.parse(text, source: source, line: line)
        case "sandbox-latency-ms":
            guard let number = Int(text), (0...60_000).contains(number) else {
                throw refuse("sandbox-latency-ms must be a whole number of milliseconds from 0 to 60000, got \"\(text.prefix(40))\"")
            }
            sandboxLatencyMilliseconds = number
        case "stripe-api-base", "stripe-return-url", "database":
            // Which addresses each takes (https or loopback; postgres://) is checked where it is used, with its reason.
            guard let url = URL(string: text), url.scheme != nil else {
                // The database's URL may hold its password: never echoed, not even in part.
                if key == "database" { throw refuse("database must be a URL such as postgres://shop@db.example/shop; \(Self.unparsedSecret)") }
                throw refuse("\(key) must be a URL, got \"\(text)\"")
            }
            switch key {
            case "database": database = url
            case "stripe-return-url": stripeReturnURL = url
            default: stripeAPIBase = url
            }
        default: throw refuse("unknown key \"\(key)\"")
        }
    }
}

extension PaymentsChoice {
    /// A `payments` setting from the file or the environment.
    public static func parse(_ value: String, source: String, line: Int?) throws -> PaymentsChoice {
        guard let choice = PaymentsChoice(rawValue: value.lowercased()) else {
            throw ConfigurationError(source: source, line: line, message: "payments must be sandbox or stripe, got \"\(value)\"")
        }
        return choice
    }
}

/// A config file or environment value that cannot be used.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var source: String
    public var line: Int?
    public var message: String

    public init(source: String, line: Int?, message: String) {
        self.source = source
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "\(source):\($0): \(message)" } ?? "\(source): \(message)" }
}
