import Foundation
import ShopApplication
import ShopPorts
import ShopSandbox
import SystemPackage

/// Which payment provider the shop takes payments with.
public enum PaymentsChoice: String, CaseIterable, Codable, Sendable {
    case sandbox, stripe
}

/// Settings from the config file and the environment, before command-line flags are applied.
///
/// Precedence, highest first: flags, `STOREFRONT_*` environment variables, the config file,
/// built-in defaults. The file is `$XDG_CONFIG_HOME/storefront/config` (default
/// `~/.config/storefront/config`), one `key = value` per line, `#` starts a comment.
public struct ShopConfiguration: Equatable, Codable, Sendable {
    public var catalog: FilePath?
    public var dataDirectory: FilePath?
    public var logLevel: String?
    /// One-Tap per entry point; nil keeps the default (on).
    public var oneTapCart: Bool?
    public var oneTapProduct: Bool?
    public var theme: String?
    public var sandboxLatencyMilliseconds: Int?
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

    public static let keys = [
        "catalog", "data-dir", "log-level", "one-tap", "one-tap-cart", "one-tap-product", "theme", "sandbox-latency-ms", "sandbox-test-cards",
        "payments", "stripe-secret-key-file", "stripe-api-base", "stripe-return-url", "stripe-raw-card-data", "database", "mouse",
    ]

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

    /// Reads the file (a missing file is fine), then applies the environment over it.
    public static func load(environment: [String: String]) throws -> ShopConfiguration {
        let url = fileURL(environment: environment)
        var configuration = ShopConfiguration()
        if let text = try readFile(url) {
            configuration = try parse(text, source: url.path)
        }
        for (name, key) in environmentKeys {
            if let value = environment[name], !value.isEmpty { try configuration.set(key, to: value, source: name, line: nil) }
        }
        // The shared One-Tap setting first, then each entry point's own, so the narrower one wins.
        if let value = environment["STOREFRONT_ONE_TAP"], !value.isEmpty {
            do { try configuration.applyOneTap(value) } catch {
                throw ConfigurationError(source: "STOREFRONT_ONE_TAP", line: nil, message: "\(error)")
            }
        }
        let switches: [(String, WritableKeyPath<ShopConfiguration, Bool?>)] = [
            ("STOREFRONT_ONE_TAP_CART", \.oneTapCart), ("STOREFRONT_ONE_TAP_PRODUCT", \.oneTapProduct),
            ("STOREFRONT_SANDBOX_TEST_CARDS", \.sandboxTestCards), ("STOREFRONT_MOUSE", \.mouse),
            ("STOREFRONT_STRIPE_RAW_CARD_DATA", \.stripeRawCardData),
        ]
        for (name, path) in switches {
            guard let value = environment[name], !value.isEmpty else { continue }
            guard let on = parseSwitch(value) else {
                throw ConfigurationError(source: name, line: nil, message: "must be on or off, got \"\(value)\"")
            }
            configuration[keyPath: path] = on
        }
        if let value = environment["STOREFRONT_PAYMENTS"], !value.isEmpty {
            configuration.payments = try PaymentsChoice.parse(value, source: "STOREFRONT_PAYMENTS", line: nil)
        }
        if let latency = environment["STOREFRONT_SANDBOX_LATENCY_MS"], !latency.isEmpty {
            guard let value = Int(latency), value >= 0 else {
                throw ConfigurationError(
                    source: "STOREFRONT_SANDBOX_LATENCY_MS", line: nil, message: "must be a whole number of milliseconds, got \"\(latency)\"")
            }
            configuration.sandboxLatencyMilliseconds = value
        }
        return configuration
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

    /// The shop's own keys: those above the first header and under `[shop]`; the fronts' sections are read by `up`.
    public static func parse(_ text: String, source: String) throws -> ShopConfiguration {
        let document = ConfigDocument(parsing: text)
        if let problem = document.problems.first { throw ConfigurationError(source: source, line: problem.line, message: problem.message) }
        var configuration = ShopConfiguration()
        for entry in document.entries(in: nil) + document.entries(in: "shop") {
            try configuration.apply(entry, source: source)
        }
        return configuration
    }

    /// Sets one of the shop's keys from the file.
    public mutating func apply(_ entry: ConfigDocument.Entry, source: String) throws {
        let (key, value, line) = (entry.key, entry.value, entry.line)
        func refuse(_ message: String) -> ConfigurationError { ConfigurationError(source: source, line: line, message: message) }
        switch key {
        case _ where Self.textKeys.contains(key):
            try set(key, to: value, source: source, line: line)
        case "one-tap":
            do { try applyOneTap(value) } catch { throw refuse("\(error)") }
        case "one-tap-cart", "one-tap-product", "sandbox-test-cards", "mouse", "stripe-raw-card-data":
            guard let on = Self.parseSwitch(value) else { throw refuse("\(key) must be on or off, got \"\(value)\"") }
            switch key {
            case "one-tap-cart": oneTapCart = on
            case "one-tap-product": oneTapProduct = on
            case "mouse": mouse = on
            case "stripe-raw-card-data": stripeRawCardData = on
            default: sandboxTestCards = on
            }
        case "payments": payments = try PaymentsChoice.parse(value, source: source, line: line)
        case "sandbox-latency-ms":
            guard let number = Int(value), number >= 0 else { throw refuse("sandbox-latency-ms must be a whole number, got \"\(value)\"") }
            sandboxLatencyMilliseconds = number
        default:
            throw refuse("unknown key \"\(key)\"; known keys: \(Self.keys.joined(separator: ", "))")
        }
    }
}

extension ShopConfiguration {
    /// The settings `set` reads from text, by their key in the file.
    public static var textKeys: [String] { environmentKeys.map(\.1) }

    /// The environment variables that set a text setting, by the setting's key in the file.
    public static let environmentKeys = [
        ("STOREFRONT_CATALOG", "catalog"), ("STOREFRONT_DATA_DIR", "data-dir"), ("STOREFRONT_LOG_LEVEL", "log-level"),
        ("STOREFRONT_THEME", "theme"), ("STOREFRONT_STRIPE_SECRET_KEY_FILE", "stripe-secret-key-file"),
        ("STOREFRONT_STRIPE_API_BASE", "stripe-api-base"), ("STOREFRONT_STRIPE_RETURN_URL", "stripe-return-url"),
        ("STOREFRONT_DATABASE_URL", "database"),
    ]

    /// Sets the setting `key` from `text`, typed as it is used: paths as `FilePath`, addresses as `URL`.
    /// The file, the environment and the flags all come through here, so each refuses the same text.
    /// What a secret that does not parse is told as, in place of its value.
    public static let unparsedSecret =
        "the value given does not parse and is not shown (it may hold a password). In a password, write # as %23, @ as %40, [ as %5B, ] as %5D, / as %2F and a space as %20; in a file, quote the value"

    public mutating func set(_ key: String, to text: String, source: String, line: Int?) throws {
        func refuse(_ message: String) -> ConfigurationError { ConfigurationError(source: source, line: line, message: message) }
        switch key {
        case "catalog": catalog = FilePath(text)
        case "data-dir": dataDirectory = FilePath(text)
        case "stripe-secret-key-file": stripeSecretKeyFile = FilePath(text)
        case "log-level": logLevel = text
        case "theme": theme = text
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
