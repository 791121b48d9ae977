import ArgumentParser
import Foundation
import ShopCommands

/// `storefront up`: every front and worker the configuration enables, in one supervised process.
struct UpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Run every front and worker the configuration enables in one process (docs/operations.md).",
        discussion: """
            Reads the config file ([ssh], [web], [api], [webhooks], [mail-worker], [renewals], [admin]; \
            docs/configuration.md), then STOREFRONT_* variables and --set over it. Starts the fronts in order; one \
            that cannot start stops the start-up with its reason. SIGHUP reads the configuration again and applies \
            what can change live (limits, mail settings, log levels), naming what needs a restart. SIGTERM or SIGINT \
            drains every front at once, telling open sessions, then stops the workers.
            """
    )

    @OptionGroup var options: ServiceConfigurationOptions

    @OptionGroup var shop: ShopOptions

    @OptionGroup var latency: SandboxLatencyOption

    @Option(setting: "log.format", as: { ServerLog.Format(rawValue: $0) }) var logFormat: ServerLog.Format?

    /// The shop's flags, as every command takes them, over the file and the environment: `--set shop.KEY=VALUE`.
    var shopSettings: [String] {
        let flags = shop.given + [("sandbox-latency-ms", latency.milliseconds.map(String.init))]
        return flags.compactMap { key, value in value.map { "shop.\(key)=\($0)" } }
            + [logFormat.map { "log.format=\($0.rawValue)" }].compactMap { $0 }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var effective = environment
        if let config = options.config { effective["STOREFRONT_CONFIG"] = config }
        let overrides = shopSettings + options.settings
        try await UpCommands.run(
            ServiceConfiguration.load(environment: effective, overrides: overrides), overrides: overrides, migrate: !shop.noMigrate,
            environment: effective)
    }
}
