import ArgumentParser
import ShopCommands

/// `storefront clock`: show, move forward or put back the shop's clock (docs/subscriptions.md).
struct ClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Show the shop's clock, move it forward on a sandbox or test-mode shop to bring renewals due, or put it back.",
        subcommands: [Show.self, Advance.self, Reset.self],
        defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "The shop's time, and how far it runs ahead of the wall clock.")
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await ClockCommands.show(configuration: shop.configuration()) }
    }

    struct Advance: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "advance",
            abstract: "Move the shop's clock forward; refused when the shop takes live payments (exit 78).")
        @Option(help: ArgumentHelp("Days to move it forward (0–3660).", valueName: "n"))
        var days = 0
        @Option(help: ArgumentHelp("Hours to move it forward (0–87840).", valueName: "n"))
        var hours = 0
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await ClockCommands.advance(days: days, hours: hours, configuration: shop.configuration()) }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Put the shop's clock back on the wall clock's time.")
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await ClockCommands.reset(configuration: shop.configuration()) }
    }
}
