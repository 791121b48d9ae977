import Foundation
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
    /// The long flag (without its dashes) that sets it on the commands that take it; nil: only `--set`.
    public let flag: String?
    /// What it is, in one line: the flag's help and the docs table say this.
    public let help: String

    init(
        _ section: String, _ key: String, _ kind: Kind, _ defaultValue: String? = nil, secret: Bool = false, reloadable: Bool = false,
        environment: String? = nil, flag: String? = nil, help: String
    ) {
        self.flag = flag
        self.help = help
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

    /// Why `text` cannot be this setting's value, or nil; the reason names the setting as `label` (a flag), else as
    /// `section.key`.
    public func problem(_ text: String, label: String? = nil) -> String? {
        let name = label ?? self.name
        if section == "shop" {
            // The shop's keys are typed by the setter every command reads them with, so each refuses the same text.
            var scratch = ShopConfiguration()
            do { try scratch.set(key, to: text, source: "", line: nil) } catch let error as ConfigurationError { return error.message } catch {
                return "\(error)"
            }
            return nil
        }
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
    /// The setting named `section.key`; a name not in the table is a programming error.
    public static subscript(_ name: String) -> ServiceKey {
        guard let key = all.first(where: { $0.name == name }) else { preconditionFailure("no setting \(name) in ServiceKey.all") }
        return key
    }

    /// Whether every command that takes the flag also reads the variable (and the file), not only `up`: all but where
    /// a process listens beside its front (`[admin]`, `[webhooks]`), its log's format and the mail command's timeout.
    public var everyCommandReadsItsVariable: Bool {
        !["admin", "webhooks", "log", "metrics", "mail-worker", "renewals"].contains(section) && name != "mail.timeout"
    }

    /// What a value looks like, as help and the docs show it.
    public var valueName: String {
        switch kind {
        case .text: "text"
        case .path: "path"
        case .url: "url"
        case .address: "host:port"
        case .list: "list"
        case .onOff: "on|off"
        case .count(let range): "\(range.lowerBound)-\(range.upperBound)"
        case .duration: "duration"
        case .choice(let choices): choices.joined(separator: "|")
        }
    }

    /// docs/configuration.md's table of every setting, one row each; a test checks that the page holds it.
    public static var documentationTable: String {
        func code(_ text: String?) -> String { text.map { "`\($0)`" } ?? "" }
        let rows = all.map { key in
            let cells = [
                code(key.name), code(key.valueName), code(key.defaultValue), code(key.flag.map { "--\($0)" }), code(key.environment),
                key.reloadable ? "yes" : "", key.help,
            ]
            // A bar is a column's end in a table, inside code too, unless escaped.
            return "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        return (["| setting | takes | default | flag | environment | SIGHUP | what it is |", "|---|---|---|---|---|---|---|"] + rows)
            .joined(separator: "\n")
    }
}
