import Foundation
import PseudoTerminal
import ShopBootstrap
import ShopServices
import ShopSessions

/// One setting of the configuration: where it lives in the file, what it takes, and whether it may change live.
public struct ServiceKey: Sendable {
    /// What a value must be.
    public enum Kind: Sendable, Equatable {
        case text, path, url, address, list
        case onOff
        case count(ClosedRange<Int>)
        case duration
        case choice([String])
    }

    public let section: String
    public let key: String
    public let kind: Kind
    /// The value when nothing sets it, as it would be written; nil: unset.
    public let defaultValue: String?
    /// Shown masked by `config show`.
    public let secret: Bool
    /// SIGHUP applies a change to it; anything else needs a restart.
    public let reloadable: Bool
    /// The environment variable that sets it: `STOREFRONT_<SECTION>_<KEY>`, or an older name kept working.
    public let environment: String

    init(
        _ section: String, _ key: String, _ kind: Kind, _ defaultValue: String? = nil, secret: Bool = false, reloadable: Bool = false,
        environment: String? = nil
    ) {
        self.section = section
        self.key = key
        self.kind = kind
        self.defaultValue = defaultValue
        self.secret = secret
        self.reloadable = reloadable
        let shouted = (section == "shop" ? key : "\(section)-\(key)").uppercased().replacingOccurrences(of: "-", with: "_")
        self.environment = environment ?? "STOREFRONT_\(shouted)"
    }

    /// `text` as a whole number: digits, with single underscores between them as TOML allows (`1_000`); no sign, no
    /// leading or doubled underscore (`+10` and `1__0_` are not numbers here).
    public static func wholeNumber(_ text: String) -> Int? {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard !text.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        return Int(parts.joined())
    }

    /// `section.key`, as `config show`, `--set` and the problems name it.
    public var name: String { "\(section).\(key)" }

    /// Why `text` cannot be this setting's value, or nil.
    public func problem(_ text: String) -> String? {
        switch kind {
        case .text, .path, .list: return nil
        case .url:
            guard !text.contains("://") || URL(string: text)?.scheme == nil else { return nil }
            // A secret's value is never echoed, not even in part: a URL that does not parse may hold its password.
            if secret { return "\(name) must be a URL such as postgres://shop@db.example/shop; \(ShopConfiguration.unparsedSecret)" }
            return "\(name) must be a URL such as https://shop.example, got \"\(text.prefix(80))\""
        case .address:
            do { _ = try ListenAddress(parsing: text) } catch { return "\(name): \(error.description)" }
            return nil
        case .onOff: return ShopConfiguration.parseSwitch(text) == nil ? "\(name) must be on or off, got \"\(text.prefix(40))\"" : nil
        case .count(let range):
            guard let number = Self.wholeNumber(text), range.contains(number) else {
                return "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text.prefix(40))\""
            }
            return nil
        case .duration:
            return ServeDuration.parse(text) == nil
                ? "\(name) must be a duration such as 30s, 15m or 2h (up to 7 days), got \"\(text.prefix(40))\"" : nil
        case .choice(let choices):
            return choices.contains(text) ? nil : "\(name) must be one of \(choices.joined(separator: ", ")), got \"\(text.prefix(40))\""
        }
    }
}

extension ServiceKey {
    /// The log levels swift-log knows, least to most severe.
    static let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// The parts of `up` a log level can be set for in `[log]`, over `shop.log-level`.
    public static let components = [
        "ssh", "web", "api", "webhooks", "mail", "mail-worker", "renewals", "admin", "storage", "sessions", "sign-in", "reload",
    ]

    /// Every setting `up` reads, in the order `config show` prints them.
    public static let all: [ServiceKey] =
        [
            ServiceKey("shop", "catalog", .path, reloadable: true), ServiceKey("shop", "data-dir", .path),
            ServiceKey("shop", "payments", .choice(["sandbox", "stripe"]), "sandbox"),
            ServiceKey("shop", "database", .url, secret: true, environment: "STOREFRONT_DATABASE_URL"),
            ServiceKey("shop", "stripe-secret-key-file", .path), ServiceKey("shop", "stripe-api-base", .url),
            ServiceKey("shop", "stripe-return-url", .url), ServiceKey("shop", "stripe-raw-card-data", .onOff, "off"),
            ServiceKey("shop", "one-tap", .text), ServiceKey("shop", "one-tap-cart", .onOff), ServiceKey("shop", "one-tap-product", .onOff),
            ServiceKey("shop", "sandbox-test-cards", .onOff, "on"), ServiceKey("shop", "sandbox-latency-ms", .count(0...60_000)),
            ServiceKey("shop", "theme", .text), ServiceKey("shop", "mouse", .onOff, "on"),
            ServiceKey("shop", "log-level", .choice(levels), "info", reloadable: true),

            ServiceKey("ssh", "enabled", .onOff, "off"), ServiceKey("ssh", "listen", .address, "0.0.0.0:2222"),
            ServiceKey("ssh", "host-key", .path), ServiceKey("ssh", "max-sessions", .count(1...10_000), "64", reloadable: true),
            ServiceKey("ssh", "max-guests", .count(0...10_000), "16", reloadable: true),
            ServiceKey("ssh", "guests-per-address", .count(1...1_000), "2", reloadable: true),
            ServiceKey("ssh", "connections-per-minute", .count(1...100_000), "30", reloadable: true),
            ServiceKey("ssh", "idle-timeout", .duration, "15m", reloadable: true),
            ServiceKey("ssh", "drain-timeout", .duration, "10s", reloadable: true),
            ServiceKey("ssh", "admin-keys", .path, reloadable: true), ServiceKey("ssh", "openssh-front", .text),
            ServiceKey("ssh", "join-socket", .path),
            ServiceKey("ssh", "openid-providers", .path, environment: "STOREFRONT_OPENID_PROVIDERS"),

            ServiceKey("web", "enabled", .onOff, "off"), ServiceKey("web", "listen", .address, "127.0.0.1:8080"),
            ServiceKey("web", "origin", .url), ServiceKey("web", "public-origins", .list),
            ServiceKey("web", "trust-forwarded-for", .onOff, "off"),
            ServiceKey("web", "max-sessions", .count(1...10_000), "32", reloadable: true),
            ServiceKey("web", "sessions-per-address", .count(1...1_000), "2", reloadable: true),
            ServiceKey("web", "connections-per-minute", .count(1...100_000), "30", reloadable: true),
            ServiceKey("web", "connections-per-address", .count(1...10_000), "16"),
            ServiceKey("web", "idle-timeout", .duration, "15m"),
            ServiceKey("web", "max-session-length", .duration, "2h"), ServiceKey("web", "request-timeout", .duration, "30s"),
            ServiceKey("web", "drain-timeout", .duration, "10s"),

            ServiceKey("api", "enabled", .onOff, "off"), ServiceKey("api", "listen", .address, "127.0.0.1:8081"),
            ServiceKey("api", "rate-limit", .count(1...100_000), "120", reloadable: true),
            ServiceKey("api", "request-timeout", .duration, "30s"), ServiceKey("api", "connections-per-address", .count(1...10_000), "32"),
            ServiceKey("api", "max-connections", .count(1...100_000), "512"), ServiceKey("api", "max-body", .count(1_024...16_777_216), "65536"),
            ServiceKey("api", "bank-check-window", .duration, "15m"), ServiceKey("api", "admin-keys", .path),

            ServiceKey("webhooks", "enabled", .onOff, "off"), ServiceKey("webhooks", "listen", .address, "127.0.0.1:8088"),
            ServiceKey("webhooks", "secret-file", .path),

            ServiceKey("mail", "command", .text, reloadable: true), ServiceKey("mail", "from", .text, reloadable: true),
            ServiceKey("mail", "reply-to", .text, reloadable: true), ServiceKey("mail", "timeout", .duration, "60s", reloadable: true),
            ServiceKey("mail-worker", "enabled", .onOff, "off"), ServiceKey("mail-worker", "interval", .duration, "10s"),
            ServiceKey("mail-worker", "retry-after", .duration, "30s"), ServiceKey("mail-worker", "give-up-after", .duration, "72h"),
            ServiceKey("renewals", "enabled", .onOff, "off"), ServiceKey("renewals", "interval", .duration, "60s"),

            ServiceKey("sessions", "per-worker", .count(1...1_000), String(WorkerPolicy.defaultSessionsPerWorker)),
            ServiceKey("sessions", "worker-recycle-after", .count(1...10_000_000), "1000"),
            ServiceKey("sessions", "worker-lifetime", .duration, "6h"),

            ServiceKey("admin", "listen", .address), ServiceKey("metrics", "enabled", .onOff, "on"),
            ServiceKey("log", "format", .choice(["text", "json"]), "text"),
        ] + components.map { ServiceKey("log", $0, .choice(levels), reloadable: true) }

    /// The sections `up` knows, in order.
    public static var sections: [String] {
        all.map(\.section).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Secrets that are only ever read from the environment, so `config show` can say whether each is set.
    public static let environmentSecrets = ["STOREFRONT_STRIPE_SECRET_KEY", "STOREFRONT_STRIPE_WEBHOOK_SECRET", "STOREFRONT_CODE_KEY"]
}
