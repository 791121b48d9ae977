import ArgumentParser
import ShopCommands
import ShopModels

/// `storefront subscriptions-worker`: renews the subscriptions that are due, again and again (docs/subscriptions.md).
struct SubscriptionsWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions-worker",
        abstract: "Renew the subscriptions that are due: each an order charged off-session, never twice, beside any number of workers."
    )

    @OptionGroup var shop: ShopOptions

    @Flag(help: "Renew what is due once and exit: 0 when all of it was settled, 75 when some is left for later.")
    var once = false

    @Option(help: ArgumentHelp("Seconds between passes (default 60).", valueName: "seconds"))
    var interval = 60

    func validate() throws {
        guard SubscriptionCommands.intervals.contains(interval) else { throw ValidationError("--interval must be between 1 and 3600 seconds") }
    }

    func run() async throws {
        try await SubscriptionCommands.work(configuration: shop.configuration(), migrate: !shop.noMigrate, interval: .seconds(interval), once: once)
    }
}

/// `storefront subscriptions`: the merchant's view of the subscriptions (docs/subscriptions.md).
struct SubscriptionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "List the subscriptions by state, show one with its history, the renewals to come, or cancel one (docs/subscriptions.md).",
        subcommands: [List.self, Show.self, Upcoming.self, Cancel.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every subscription, or those in one state, soonest due first.")
        @Option(help: ArgumentHelp("active, paused, past_due or canceled.", valueName: "state"))
        var status: SubscriptionStatus?
        @Flag(help: "Print JSON instead of a table.")
        var json = false
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await SubscriptionCommands.list(status: status, json: json, configuration: shop.configuration()) }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "One subscription and every change in its history.")
        @Argument(help: ArgumentHelp("The subscription's id.", valueName: "id"))
        var id: String
        @Flag(help: "Print JSON instead of text.")
        var json = false
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await SubscriptionCommands.show(id, json: json, configuration: shop.configuration()) }
    }

    struct Upcoming: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upcoming", abstract: "The renewals due in the next days and their goods at today's prices.")
        @Option(help: ArgumentHelp("How many days ahead (1 to 366, default 30).", valueName: "days"))
        var days = 30
        @Flag(help: "Print JSON instead of a table.")
        var json = false
        @OptionGroup var shop: ShopDatabaseOptions
        func validate() throws { guard (1...366).contains(days) else { throw ValidationError("--days must be between 1 and 366") } }
        func run() async throws { try await SubscriptionCommands.upcoming(days: days, json: json, configuration: shop.configuration()) }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel", abstract: "Cancel a subscription at once, or at the end of its period.")
        @Argument(help: ArgumentHelp("The subscription's id.", valueName: "id"))
        var id: String
        @Flag(name: .customLong("at-period-end"), help: "End it at its next renewal date instead of now.")
        var atPeriodEnd = false
        @OptionGroup var shop: ShopDatabaseOptions
        func run() async throws { try await SubscriptionCommands.cancel(id, atPeriodEnd: atPeriodEnd, configuration: shop.configuration()) }
    }
}

extension SubscriptionStatus: ExpressibleByArgument {}
