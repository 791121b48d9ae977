import ArgumentParser
import Foundation
import ShopBootstrap
import ShopMerchant
import ShopModels
import ShopPorts
import StoragePostgres
import StorageSQLite

/// The back office on the shop's database and its payment provider, for the commands that move money.
///
/// Order of calls: `open` → `recover` (refunds an earlier run left pending are asked for again) → the change →
/// `close`.
struct BackOfficeSession {
    let office: LiveBackOffice
    let close: @Sendable () async -> Void

    static func open(_ shop: ShopDatabaseOptions) async throws -> BackOfficeSession {
        let environment = ProcessInfo.processInfo.environment
        let configuration = try shop.configuration(environment: environment)
        let storage = try await shop.openStorage()
        let payments: PaymentStack
        do {
            payments = try configuringPayments { () throws(StripeSettings.Problem) in
                try PaymentStack.make(
                    configuration: configuration, environment: environment, ledger: storage.ledger, references: storage.references,
                    currency: storage.currency,
                    clock: ContinuousClock(), latency: .zero, fault: FaultHook(environment: environment), log: { complain($0) }
                )
            }
        } catch {
            storage.close()
            throw error
        }
        return BackOfficeSession(office: storage.backOffice(payments, environment: environment)) {
            await payments.close()
            storage.close()
        }
    }

    /// Asks the provider again about refunds left pending, and says on stderr what each came to.
    func recover() async {
        do {
            for recovery in try await office.finishPendingRefunds() {
                complain(
                    "refund \(recovery.refundID) of \(recovery.orderNumber), left pending by an earlier run: \(recovery.failure.map(\.description) ?? "refunded now")"
                )
            }
        } catch {
            complain("cannot read the refunds left pending: \(error)")
        }
    }

    /// Makes `change` with the local user as the merchant, prints the order, and exits by the failure: 65 for what
    /// the order or the provider refuses, 69 when the provider cannot be reached, 75 when the order changed or the
    /// refund went unanswered, 74 when storage failed.
    static func run(_ target: OrderTarget, _ change: @Sendable (LiveBackOffice, OrderActor) async throws(BackOfficeError) -> Order) async throws {
        let session = try await open(target.shop)
        await session.recover()
        let order: Order
        do throws(BackOfficeError) {
            order = try await change(session.office, .merchant(NSUserName()))
        } catch {
            await session.close()
            complain("\(error)")
            switch error {
            case .change(.refused), .change(.notFound), .change(.restockAboveOrdered), .refund(.declined), .stock(.unknownProduct),
                .stock(.belowZero), .stock(.aboveMaximum):
                throw ExitCodes.dataError
            case .change(.changed), .change(.refundPending), .refund(.unanswered), .refund(.unfinished): throw ExitCodes.temporaryFailure
            case .refund(.unreachable): throw ExitCodes.databaseUnreachable
            case .change(.storage), .stock(.storage): throw ExitCodes.ioError
            }
        }
        let dossier = try? await session.office.dossier(order.number)
        await session.close()
        try OrderOutput.emit(order, events: dossier?.events ?? [], refunds: dossier?.refunds ?? [], json: target.json)
    }
}

extension OrdersCommand {
    /// `storefront orders refund N (--amount A | --line ID[:QTY]…) [--restock] --reason TEXT`.
    struct Refund: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
            guard amount != nil || !lines.isEmpty else {
                throw ValidationError("say what to refund: --amount 12.50, or one or more --line PRODUCT-ID[:QUANTITY]")
            }
            if restock, lines.isEmpty { throw ValidationError("--restock puts back the --line lines; name at least one") }
            if let amount, Money(typed: amount, currency: .usd) == nil, Money(typed: amount, currency: .jpy) == nil {
                throw ValidationError("--amount must be a plain amount such as 12.50, got \"\(amount)\"")
            }
            guard MerchantEntry.isPlainLine(reason) else {
                throw ValidationError("--reason must be 1 to 100 characters on one line, got \"\(reason)\"")
            }
            for line in lines where Self.parseLine(line) == nil {
                throw ValidationError(
                    "--line must be PRODUCT-ID or PRODUCT-ID:QUANTITY with a quantity of 1 to \(CartLine.quantityRange.upperBound), got \"\(line)\"")
            }
        }

        /// `hoodie-root:2` → (hoodie-root, 2); `hoodie-root` → (hoodie-root, nil: all of it).
        static func parseLine(_ text: String) -> (ProductID, Int?)? {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard let id = parts.first, !id.isEmpty, parts.count <= 2 else { return nil }
            guard parts.count == 2 else { return (ProductID(String(id)), nil) }
            // Bounded as a cart line is, so summing repeated lines never overflows.
            guard let quantity = Int(parts[1]), CartLine.quantityRange.contains(quantity) else { return nil }
            return (ProductID(String(id)), quantity)
        }

        func run() async throws {
            let (number, typedAmount, lines, restock, reason) = (target.number, amount, lines.compactMap(Self.parseLine), restock, reason)
            try await BackOfficeSession.run(target) { office, actor throws(BackOfficeError) in
                try await office.refund(number, lines: lines, typedAmount: typedAmount, restock: restock, reason: reason, by: actor)
            }
        }
    }

    /// `storefront orders cancel N [--reason TEXT]`.
    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a paid order that has not shipped: give back all of what is left of its payment and put every line back in stock.")

        @OptionGroup var target: OrderTarget

        @Option(help: ArgumentHelp("Why, for the order's history (one line).", valueName: "text"))
        var reason = "canceled by the shop"

        func validate() throws {
            guard MerchantEntry.isPlainLine(reason) else {
                throw ValidationError("--reason must be 1 to 100 characters on one line, got \"\(reason)\"")
            }
        }

        func run() async throws {
            let (number, reason) = (target.number, reason)
            try await BackOfficeSession.run(target) { office, actor throws(BackOfficeError) in
                try await office.cancel(number, reason: reason, by: actor, expecting: nil)
            }
        }
    }
}
