import ArgumentParser
import Logging
import ShopBootstrap
import ShopCommands
import ShopRecording
import ShopServices
import ShopSessions
import StorefrontUI
import SystemPackage
import TerminalNCurses

/// Typed command-line values: each parses once, with the reason a bad one is refused.
enum Arguments {
    /// `--size COLUMNSxROWS`, up to the largest size the shop draws.
    static func size(_ text: String) throws -> Size {
        guard let parsed = Size(parsing: text) else { throw ValidationError("bad size \"\(text)\": use COLUMNSxROWS, e.g. 80x24") }
        guard parsed.bounded == parsed else {
            throw ValidationError("bad size \"\(text)\": at most \(Size.maximum), the largest size the shop draws")
        }
        return parsed
    }

    /// "on" or "off", for a switch given on the command line.
    static func onOff(_ option: String) -> @Sendable (String) throws -> Bool {
        { text in
            switch text.lowercased() {
            case "on": return true
            case "off": return false
            default: throw ValidationError("\(option) must be on or off, not \"\(text)\"")
            }
        }
    }

    /// "400ms" or "2s": a pace between keys, from 10 ms to a minute.
    static let pace: @Sendable (String) throws -> Duration = { text in
        guard let pace = CastRecording.pace(parsing: text) else {
            throw ValidationError("--pace \"\(text)\" is not a duration like 400ms or 1s (10ms to 60s)")
        }
        return pace
    }
}

extension ThemePreference: ExpressibleByArgument {}

// swift-format-ignore: AvoidRetroactiveConformances
extension Logger.Level: @retroactive ExpressibleByArgument {}

// swift-format-ignore: AvoidRetroactiveConformances
extension FilePath: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        guard !argument.isEmpty else { return nil }
        self.init(argument)
    }
}

/// How a setting's text becomes its value, once the table has checked it (`Option.init(setting:as:)`).
enum SettingValue {
    static let text: @Sendable (String) -> String? = { $0 }
    static let number: @Sendable (String) -> Int? = ServiceKey.wholeNumber
    static let duration: @Sendable (String) -> Duration? = ServeDuration.parse
    static let onOff: @Sendable (String) -> Bool? = ShopConfiguration.parseSwitch
    static let address: @Sendable (String) -> ListenAddress? = { try? ListenAddress(parsing: $0) }
}

extension ServiceKey {
    /// The flag's name in the table.
    var flagName: NameSpecification { .customLong(flag ?? key) }

    /// The table's line, its default (unless the flag alone is off by default) and, where every command reads it, its
    /// variable.
    func flagHelp(showingDefault: Bool = true) -> ArgumentHelp {
        var text = help
        if showingDefault, let defaultValue { text += " Default: \(defaultValue)." }
        if everyCommandReadsItsVariable { text += " Env: \(environment)." }
        return ArgumentHelp(text, valueName: valueName)
    }

    /// The flag's text checked as the file's and the environment's is (the flag named), then typed by `type`.
    func flagValue<T>(_ type: @escaping @Sendable (String) -> T?) -> @Sendable (String) throws -> T {
        let label = "--\(flag ?? key)"
        return { [self] text in
            // A secret is checked once the command reads its configuration, where it is never echoed: ArgumentParser's
            // own message would quote the value.
            if !secret, let problem = problem(text, label: label) { throw ValidationError(problem) }
            guard let value = type(text) else { throw ValidationError("\(label) cannot be \"\(text.prefix(40))\"") }
            return value
        }
    }
}

extension Option {
    /// An option the settings table describes (`ServiceKey[setting]`): its flag, help, value's name and bounds.
    init<T>(setting: String, as type: @escaping @Sendable (String) -> T?, showingDefault: Bool = true) where Value == T? {
        let key = ServiceKey[setting]
        self.init(name: key.flagName, help: key.flagHelp(showingDefault: showingDefault), transform: key.flagValue(type))
    }

    /// The same, holding the table's default when the flag is not given.
    init(defaultOf setting: String, as type: @escaping @Sendable (String) -> Value?) {
        let key = ServiceKey[setting]
        guard let text = key.defaultValue, let value = type(text) else { preconditionFailure("\(setting) has no default of this type") }
        self.init(wrappedValue: value, name: key.flagName, help: key.flagHelp(), transform: key.flagValue(type))
    }
}

extension Flag where Value == Bool {
    /// An on/off setting given as a bare flag, which only ever turns it on.
    init(setting: String) {
        let key = ServiceKey[setting]
        self.init(
            wrappedValue: false, name: key.flagName,
            help: ArgumentHelp(key.help + (key.everyCommandReadsItsVariable ? " Env: \(key.environment)=on." : "")))
    }
}
