import Foundation
import ShopBootstrap

/// `storefront config check` and `config show`: the configuration `up` would run on, checked or printed.
public enum ConfigCommands {
    /// Names every problem with its source (file and line, variable or flag); exits 78 when there is one.
    public static func check(_ configuration: ServiceConfiguration) throws {
        let problems = configuration.everyProblem
        guard problems.isEmpty else {
            for problem in problems { complain(problem.description) }
            complain("\(problems.count) problem\(problems.count == 1 ? "" : "s") in the configuration")
            throw ExitCodes.configError
        }
        for warning in configuration.warnings { complain("warning: \(warning)") }
        let file = configuration.file ?? "no config file"
        try writeResult("\(file): ok; up would run \(configuration.enabled.joined(separator: ", "))", what: "the check")
    }

    /// The effective value of every setting, secrets masked, each with where it came from.
    public static func show(_ configuration: ServiceConfiguration, environment: [String: String]) throws {
        var lines = ["# the configuration `storefront up` runs on, from \(configuration.file ?? "no config file"), the environment and flags"]
        for section in ServiceKey.sections {
            lines.append("")
            lines.append("[\(section)]")
            for value in configuration.values where value.key.section == section {
                guard let text = value.text else {
                    lines.append("# \(value.key.key) is unset")
                    continue
                }
                let shown: String
                switch value.key.kind {
                case _ where value.key.secret: shown = quoted(masked(text))
                case .count, .onOff: shown = value.key.problem(text) == nil ? text : quoted(text)
                default: shown = quoted(text)
                }
                lines.append("\(value.key.key) = \(shown)  # \(value.source)")
            }
        }
        lines.append("")
        lines.append("# secrets read only from the environment")
        for name in ServiceKey.environmentSecrets {
            lines.append("# \(name): \(environment[name].map { $0.isEmpty ? "empty" : "set (hidden)" } ?? "not set")")
        }
        for problem in configuration.problems { lines.append("# problem: \(problem.description)") }
        try writeResult(lines.joined(separator: "\n"), what: "the configuration")
    }

    /// A URL with its password hidden (postgres://shop:****@db/shop); any other secret hidden whole.
    public static func masked(_ text: String) -> String {
        guard var parts = URLComponents(string: text), parts.scheme != nil else { return "****" }
        if parts.password != nil { parts.password = "****" }
        // A URL's query may carry a password too (postgres://…?password=…).
        parts.queryItems = parts.queryItems?.map { item in
            ["password", "sslpassword", "key", "secret"].contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "****") : item
        }
        return parts.string ?? "****"
    }

    /// A TOML basic string: TOML's escapes are JSON's, so the log's encoder serves both.
    static func quoted(_ text: String) -> String { LogLine.quoted(text) }
}
