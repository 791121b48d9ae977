import ArgumentParser
import CoreMetrics
import Foundation
import Logging
import ShopCommands
import ShopMetrics
import StorefrontCore
import SystemPackage
import TerminalNCurses

/// `storefront` / `storefront run`: opens the shop in this terminal.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Open the shop in this terminal (the default command).",
        discussion: "Keys: arrows or j/k move, Enter opens, Esc goes back, a adds, c cart, u account, p pays, ? help, q quits."
    )

    @OptionGroup var shop: ShopOptions

    @OptionGroup var terminal: TerminalOptions

    @OptionGroup var mail: MailSettings

    @OptionGroup var latency: SandboxLatencyOption

    @Option(help: ArgumentHelp("Record this session as an asciicast v2 file; what is typed in forms is left out.", valueName: "file.cast"))
    var record: FilePath?

    @Flag(help: "With --record: replace the file if it exists.")
    var force = false

    @MainActor
    func run() async throws {
        try await open(console: .shop)
    }

    /// Opens the shop, or the merchant console, in this terminal (or on a worker's session's).
    @MainActor
    func open(console: Console, place: TerminalPlace = .ownTerminal) async throws {
        SessionMetrics.bootstrap(environment: ProcessInfo.processInfo.environment)
        if let record, case .ownTerminal = place {
            return try TerminalShop.record(to: record, force: force, arguments: Array(CommandLine.arguments.dropFirst()))
        }
        let overrides = TerminalShop.Overrides(
            logLevel: terminal.logLevel?.rawValue, theme: terminal.theme?.rawValue, mouse: terminal.mouse,
            sandboxLatencyMilliseconds: latency.milliseconds)
        try await TerminalShop.open(
            console: console, ownConfiguration: { try shop.configuration(environment: ProcessInfo.processInfo.environment) },
            migrate: !shop.noMigrate, overrides: overrides, mail: mail.choice, place: place)
    }
}

extension Run {
    /// Opens, in a fresh worker, the storage its sessions of this command line will share (`TerminalShop.prepareWorker`).
    @MainActor
    func prepareWorker() async {
        await TerminalShop.prepareWorker(
            ownConfiguration: { try shop.configuration(environment: ProcessInfo.processInfo.environment) }, migrate: !shop.noMigrate)
    }
}

/// How the shop or the console uses the terminal, and what it logs: the options `run` and `admin` share.
struct TerminalOptions: ParsableArguments {
    @Option(setting: "shop.log-level", as: { Logger.Level(rawValue: $0) }) var logLevel: Logger.Level?
    @Option(setting: "shop.theme", as: { ThemePreference(rawValue: $0) }) var theme: ThemePreference?
    @Option(setting: "shop.mouse", as: SettingValue.onOff) var mouse: Bool?
}

/// `storefront admin`: the merchant console in this terminal, on the shop's database and payments.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Open the merchant console: ship, refund and cancel orders, count stock, see sales.",
        discussion: """
            Keys: 1 orders, 2 stock, 3 sales; in the orders Tab changes the status shown and Enter opens one; on an \
            order s ships, d marks delivered, r refunds, x cancels, each confirmed with Enter. Changes are recorded \
            as made by your user name (or, over SSH with --admin-keys, by your key's fingerprint).
            """
    )

    @OptionGroup var shop: ShopOptions

    @OptionGroup var terminal: TerminalOptions

    @OptionGroup var mail: MailSettings

    @MainActor
    func run() async throws {
        try await open(place: .ownTerminal)
    }

    @MainActor
    func open(place: TerminalPlace) async throws {
        // Parsed from nothing, so every option of `run` holds its default; then this command's are put in.
        var run = try Run.parse([])
        run.shop = shop
        run.terminal = terminal
        run.mail = mail
        let environment = place.environment ?? ProcessInfo.processInfo.environment
        try await run.open(console: .merchant(name: TerminalShop.merchantName(environment: environment)), place: place)
    }
}

/// A server's session: its counters and timings go to the server's relay, labelled with its front.
@MainActor
enum SessionMetrics {
    /// Once per process: a worker's sessions share its relay.
    private static var isBootstrapped = false

    static func bootstrap(environment: [String: String]) {
        guard !isBootstrapped else { return }
        isBootstrapped = true
        guard let address = environment[MetricsRelay.addressVariable], let factory = RelayMetricsFactory(address: address) else { return }
        MetricsSystem.bootstrap(factory)
        ShopMetrics.setProcessFront(ShopMetrics.boundedLabel(environment[MetricsRelay.frontVariable] ?? "ssh", allowed: ["ssh", "web"]))
    }
}
