import ArgumentParser
import ShopCommands
import ShopPorts

extension OrdersCommand {
    /// `storefront orders refund N (--amount A | --line ID[:QTY]…) [--restock] --reason TEXT`.
    struct Refund: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refund",
            abstract: "Give back part or all of a paid order's payment through the payment provider.",
            discussion: """
                Choose lines (--line hoodie-root:1; their price and tax) or an amount (--amount 12.50), or both: the \
                amount is what is given back, the lines what --restock puts back in stock.
                """
        )

        @OptionGroup var target: OrderTarget

        @Option(help: ArgumentHelp("How much to give back, in the order's currency, such as 12.50.", valueName: "amount"))
        var amount: String?

        @Option(
            name: .customLong("line"),
            help: ArgumentHelp(
                "A line to refund, as PRODUCT-ID or PRODUCT-ID:QUANTITY (all of it by default). Repeat for more lines.", valueName: "id[:n]"))
        var lines: [String] = []

        @Flag(help: "Put the chosen lines back in stock.")
        var restock = false

        @Option(help: ArgumentHelp("Why, for the order's history (one line).", valueName: "text"))
        var reason: String

        func validate() throws {
            if let problem = OrderCommands.refundProblem(amount: amount, lines: lines, restock: restock, reason: reason) {
                throw ValidationError(problem)
            }
        }

        func run() async throws {
            let (number, typedAmount, lines, restock, reason) = (
                target.number, amount, lines.compactMap(OrderCommands.parseRefundLine), restock, reason
            )
            try await target.change { office, actor throws(BackOfficeError) in
                try await office.refund(number, lines: lines, typedAmount: typedAmount, restock: restock, reason: reason, by: actor)
            }
        }
    }

    /// `storefront orders cancel N [--reason TEXT]`.
    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel",
            abstract: "Cancel a paid order that has not shipped: give back all of what is left of its payment and put every line back in stock.")

        @OptionGroup var target: OrderTarget

        @Option(help: ArgumentHelp("Why, for the order's history (one line).", valueName: "text"))
        var reason = "canceled by the shop"

        func validate() throws {
            if let problem = OrderCommands.reasonProblem(reason) { throw ValidationError(problem) }
        }

        func run() async throws {
            let (number, reason) = (target.number, reason)
            try await target.change { office, actor throws(BackOfficeError) in
                try await office.cancel(number, reason: reason, by: actor, expecting: nil)
            }
        }
    }
}
