import ArgumentParser
import Foundation
import ShopCommands

/// Which configuration `up` and `config` read: the file, and settings over it.
struct ServiceConfigurationOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The config file. Default: STOREFRONT_CONFIG, else $XDG_CONFIG_HOME/storefront/config (docs/configuration.md).", valueName: "path"))
    var config: String?

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "A setting over the file and the environment, such as ssh.max-sessions=100; repeat for more.", valueName: "section.key=value"))
    var settings: [String] = []

    /// The configuration these options name, with every problem found.
    func load(environment: [String: String] = ProcessInfo.processInfo.environment) -> ServiceConfiguration {
        var environment = environment
        if let config { environment["STOREFRONT_CONFIG"] = config }
        return ServiceConfiguration.load(environment: environment, overrides: settings)
    }
}

/// `storefront config`: the configuration `up` runs on, checked or shown.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Check the configuration, or show what each setting is and where it came from (docs/configuration.md).",
        subcommands: [Check.self, Show.self], defaultSubcommand: Check.self
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Name every problem in the configuration with its line, variable or flag.",
            discussion: "Exits 0 when `storefront up` could start on it, 78 when it could not.")
        @OptionGroup var options: ServiceConfigurationOptions

        func run() throws { try ConfigCommands.check(options.load()) }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the effective configuration, secrets masked, each value with where it came from.")
        @OptionGroup var options: ServiceConfigurationOptions

        func run() throws { try ConfigCommands.show(options.load(), environment: ProcessInfo.processInfo.environment) }
    }
}
