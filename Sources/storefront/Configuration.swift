import Foundation

/// Settings from the config file and the environment, before command-line flags are applied.
///
/// Precedence, highest first: flags, `STOREFRONT_*` environment variables, the config file,
/// built-in defaults. The file is `$XDG_CONFIG_HOME/storefront/config` (default
/// `~/.config/storefront/config`), one `key = value` per line, `#` starts a comment.
struct Configuration: Equatable {
    var catalog: String?
    var dataDirectory: String?
    var logLevel: String?
    var oneTap: String?
    var theme: String?
    var sandboxLatencyMilliseconds: Int?

    static let keys = ["catalog", "data-dir", "log-level", "one-tap", "theme", "sandbox-latency-ms"]

    /// Where the config file is looked for.
    static func fileURL(environment: [String: String]) -> URL {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return URL(fileURLWithPath: base).appendingPathComponent("storefront/config")
    }

    /// The default data directory: `$XDG_DATA_HOME/storefront`, else `~/.local/share/storefront`.
    static func defaultDataDirectory(environment: [String: String]) -> String {
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return base + "/storefront"
    }

    /// Reads the file (a missing file is fine), then applies the environment over it.
    static func load(environment: [String: String]) throws -> Configuration {
        let url = fileURL(environment: environment)
        var configuration = Configuration()
        if let text = try? String(contentsOf: url, encoding: .utf8) {
            configuration = try parse(text, source: url.path)
        }
        let overrides: [(String, WritableKeyPath<Configuration, String?>)] = [
            ("STOREFRONT_CATALOG", \.catalog), ("STOREFRONT_DATA_DIR", \.dataDirectory),
            ("STOREFRONT_LOG_LEVEL", \.logLevel), ("STOREFRONT_ONE_TAP", \.oneTap), ("STOREFRONT_THEME", \.theme),
        ]
        for (name, path) in overrides {
            if let value = environment[name], !value.isEmpty { configuration[keyPath: path] = value }
        }
        if let latency = environment["STOREFRONT_SANDBOX_LATENCY_MS"], !latency.isEmpty {
            guard let value = Int(latency), value >= 0 else {
                throw ConfigurationError(source: "STOREFRONT_SANDBOX_LATENCY_MS", line: nil, message: "must be a whole number of milliseconds, got \"\(latency)\"")
            }
            configuration.sandboxLatencyMilliseconds = value
        }
        return configuration
    }

    static func parse(_ text: String, source: String) throws -> Configuration {
        var configuration = Configuration()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ConfigurationError(source: source, line: index + 1, message: "expected key = value, got \"\(line)\"")
            }
            let (key, value) = (parts[0], parts[1])
            switch key {
            case "catalog": configuration.catalog = value
            case "data-dir": configuration.dataDirectory = value
            case "log-level": configuration.logLevel = value
            case "one-tap": configuration.oneTap = value
            case "theme": configuration.theme = value
            case "sandbox-latency-ms":
                guard let number = Int(value), number >= 0 else {
                    throw ConfigurationError(source: source, line: index + 1, message: "sandbox-latency-ms must be a whole number, got \"\(value)\"")
                }
                configuration.sandboxLatencyMilliseconds = number
            default:
                throw ConfigurationError(source: source, line: index + 1, message: "unknown key \"\(key)\"; known keys: \(keys.joined(separator: ", "))")
            }
        }
        return configuration
    }
}

/// A config file or environment value that cannot be used.
struct ConfigurationError: Error, CustomStringConvertible {
    var source: String
    var line: Int?
    var message: String
    var description: String { line.map { "\(source):\($0): \(message)" } ?? "\(source): \(message)" }
}
