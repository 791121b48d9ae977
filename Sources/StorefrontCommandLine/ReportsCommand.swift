import ArgumentParser
import MerchantReports
import ShopCommands

/// The period, format and destination every export takes.
struct ExportOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The first day, in UTC (default: 364 days before --to).", valueName: "YYYY-MM-DD"))
    var from: String?

    @Option(help: ArgumentHelp("The last day, in UTC, included (default: today by the shop's clock).", valueName: "YYYY-MM-DD"))
    var to: String?

    @Option(help: ArgumentHelp("csv (RFC 4180, for spreadsheets) or json.", valueName: "format"))
    var format: ExportFormat = .csv

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file, whole or not at all (default: standard output).", valueName: "file"))
    var output: String?

    @OptionGroup var shop: ShopDatabaseOptions

    func write(_ kind: PeriodReports.Kind) async throws {
        try await ExportCommands.write(kind, from: from, to: to, format: format, output: output, configuration: shop.configuration())
    }
}

extension ExportFormat: ExpressibleByArgument {}

extension OrdersCommand {
    /// `storefront orders export`: a period's orders, one row each.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Write a period's orders as CSV or JSON, one row per order (docs/merchants.md).")

        @OptionGroup var options: ExportOptions

        func run() async throws { try await options.write(.orders) }
    }
}

/// `storefront reports`: what a bookkeeper takes from a period.
struct ReportsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports", abstract: "Write a period's sales, tax or refunds as CSV or JSON (docs/merchants.md).",
        subcommands: [Sales.self, Tax.self, Refunds.self])

    struct Sales: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sales",
            abstract: "Sales per day and currency, or per product with --by product: orders, goods, discounts, shipping, tax, refunds, net.")

        enum Grouping: String, ExpressibleByArgument, CaseIterable { case day, product }

        @Option(help: ArgumentHelp("day or product.", valueName: "grouping"))
        var by: Grouping = .day

        @OptionGroup var options: ExportOptions

        func run() async throws { try await options.write(by == .day ? .salesByDay : .salesByProduct) }
    }

    struct Tax: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tax",
            abstract: "Tax per jurisdiction, rate and currency for a filing period: taxable sales, tax charged, tax refunded, net.")

        @OptionGroup var options: ExportOptions

        func run() async throws { try await options.write(.tax) }
    }

    struct Refunds: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refunds", abstract: "Each refund settled in the period, with its tax part and reason.")

        @OptionGroup var options: ExportOptions

        func run() async throws { try await options.write(.refunds) }
    }
}
