import Foundation
import ShopBootstrap

/// The whole configuration `up` runs on: every setting's value and where it came from.
///
/// Precedence, highest first: `--set section.key=value` (and the flags of `up`), `STOREFRONT_*` environment variables,
/// the config file, defaults. Every problem is collected with its source, so `config check` names them all at once.
public struct ServiceConfiguration: Sendable {
    /// Where a value came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        case defaultValue
        case file(path: String, line: Int)
        case environment(String)
        case flag(String)

        public var description: String {
            switch self {
            case .defaultValue: "default"
            case .file(let path, let line): "\(path):\(line)"
            case .environment(let name): "env \(name)"
            case .flag(let name): name
            }
        }
    }

    /// One setting's effective value.
    public struct Value: Sendable {
        public let key: ServiceKey
        public let text: String?
        public let source: Source
    }

    public let values: [Value]
    /// The file read, nil when there was none.
    public let file: String?
    /// Everything wrong, each naming its source: empty when the configuration can run.
    public let problems: [ConfigurationError]

    /// Reads the file (`STOREFRONT_CONFIG`, else the user's), then the environment and `overrides` over it.
    public static func load(environment: [String: String], overrides: [String] = []) -> ServiceConfiguration {
        let url = ShopConfiguration.fileURL(environment: environment)
        do {
            let text = try ShopConfiguration.readFile(url)
            // A file named on purpose (--config, STOREFRONT_CONFIG) must be there; only the user's own may be absent.
            if text == nil, let named = environment["STOREFRONT_CONFIG"], !named.isEmpty {
                return ServiceConfiguration(
                    values: [], file: url.path, problems: [ConfigurationError(source: url.path, line: nil, message: "no such config file")])
            }
            return resolve(text: text, path: url.path, environment: environment, overrides: overrides)
        } catch let error as ConfigurationError {
            return ServiceConfiguration(values: [], file: url.path, problems: [error])
        } catch {
            return ServiceConfiguration(values: [], file: url.path, problems: [ConfigurationError(source: url.path, line: nil, message: "\(error)")])
        }
    }

    /// The same from text already read; `path` names it in problems.
    public static func resolve(text: String?, path: String, environment: [String: String], overrides: [String]) -> ServiceConfiguration {
        var problems: [ConfigurationError] = []
        var found: [String: (String, Source)] = [:]
        if let text {
            let document = ConfigDocument(parsing: text)
            problems += document.problems.map { ConfigurationError(source: path, line: $0.line, message: $0.message) }
            for (section, line) in document.sections where !ServiceKey.sections.contains(section) {
                problems.append(
                    ConfigurationError(
                        source: path, line: line,
                        message: "unknown section [\(section)]; known sections: \(ServiceKey.sections.map { "[\($0)]" }.joined(separator: ", "))"))
            }
            for entry in document.entries where ServiceKey.sections.contains(entry.section ?? "shop") {
                let section = entry.section ?? "shop"
                guard let key = ServiceKey.all.first(where: { $0.section == section && $0.key == entry.key }) else {
                    problems.append(unknown(entry, path: path))
                    continue
                }
                found[key.name] = (entry.value, .file(path: path, line: entry.line))
            }
        }
        for key in ServiceKey.all {
            if let value = environment[key.environment], !value.isEmpty { found[key.name] = (value, .environment(key.environment)) }
        }
        var flagProblems: [ConfigurationError] = []
        for override in overrides {
            let parts = override.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let key = ServiceKey.all.first(where: { $0.name == parts[0] }) else {
                flagProblems.append(
                    ConfigurationError(source: "--set", line: nil, message: "\"\(override.prefix(80))\" is not SECTION.KEY=VALUE with a known key"))
                continue
            }
            found[key.name] = (parts[1], .flag("--set \(key.name)"))
        }
        var values: [Value] = []
        for key in ServiceKey.all {
            guard let (text, source) = found[key.name] else {
                values.append(Value(key: key, text: key.defaultValue, source: .defaultValue))
                continue
            }
            if let problem = key.problem(text) { problems.append(error(problem, from: source)) }
            values.append(Value(key: key, text: text, source: source))
        }
        problems += flagProblems
        // In the file's order, then the environment's and the flags'.
        let ordered = problems.enumerated().sorted { ($0.element.line ?? Int.max, $0.offset) < ($1.element.line ?? Int.max, $1.offset) }.map(
            \.element)
        return ServiceConfiguration(values: values, file: text == nil ? nil : path, problems: ordered)
    }

    /// The value of `name` (`section.key`), nil when unset.
    public subscript(_ name: String) -> String? {
        guard let value = values.first(where: { $0.key.name == name }) else { preconditionFailure("no setting \(name)") }
        return value.text
    }

    /// Where `name`'s value came from.
    public func source(of name: String) -> Source { values.first { $0.key.name == name }?.source ?? .defaultValue }

    /// A number setting, already checked against its bounds.
    public func count(_ name: String) -> Int { ServiceKey.wholeNumber(self[name] ?? "0") ?? 0 }

    public func isOn(_ name: String) -> Bool { self[name].flatMap(ShopConfiguration.parseSwitch) ?? false }

    /// The problem as it reads, with its source: the file's line, the variable or the flag.
    static func error(_ message: String, from source: Source) -> ConfigurationError {
        switch source {
        case .file(let path, let line): ConfigurationError(source: path, line: line, message: message)
        case .environment(let name): ConfigurationError(source: name, line: nil, message: message)
        case .flag(let name): ConfigurationError(source: name, line: nil, message: message)
        case .defaultValue: ConfigurationError(source: "default", line: nil, message: message)
        }
    }

    private static func unknown(_ entry: ConfigDocument.Entry, path: String) -> ConfigurationError {
        let section = entry.section ?? "shop"
        let known = ServiceKey.all.filter { $0.section == section }.map(\.key)
        return ConfigurationError(
            source: path, line: entry.line, message: "unknown key \"\(entry.key)\" in [\(section)]; known keys: \(known.joined(separator: ", "))")
    }

    /// The shop's settings as every command takes them.
    public var shop: ShopConfiguration {
        var shop = ShopConfiguration()
        for value in values where value.key.section == "shop" && value.source != .defaultValue {
            guard let text = value.text else { continue }
            try? shop.set(value.key.key, to: text, source: "", line: nil)
        }
        return shop
    }
}
