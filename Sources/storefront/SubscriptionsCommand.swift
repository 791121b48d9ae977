import ArgumentParser
import ShopCommands

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
