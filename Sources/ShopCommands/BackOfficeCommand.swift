import Foundation
import ShopApplication
import ShopBootstrap
import ShopModels
import ShopPorts

/// The back office on the shop's database and its payment provider, for the commands that move money.
///
/// Order of calls: `open` → `recover` (refunds an earlier run left pending are asked for again) → the change →
/// `close`.
public struct BackOfficeCommand {
    let office: LiveBackOffice
    let close: @Sendable () async -> Void

    static func open(configuration: ShopConfiguration, environment: [String: String]) async throws -> BackOfficeCommand {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        let payments: PaymentStack
        do {
            payments = try configuringPayments { () throws(StripeSettings.Problem) in
                try PaymentStack.make(
                    configuration: configuration, environment: environment, ledger: storage.ledger, references: storage.references,
                    currency: storage.currency, clock: ContinuousClock(), latency: .zero, fault: FaultHook(environment: environment),
                    log: { complain($0) }
                )
            }
        } catch {
            storage.close()
            throw error
        }
        return BackOfficeCommand(office: storage.backOffice(payments, environment: environment)) {
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
    public static func run(
        configuration: ShopConfiguration, json: Bool, environment: [String: String] = ProcessInfo.processInfo.environment,
        _ change: @Sendable (LiveBackOffice, OrderActor) async throws(BackOfficeError) -> Order
    ) async throws {
        let session = try await open(configuration: configuration, environment: environment)
        await session.recover()
        let order: Order
        do throws(BackOfficeError) {
            order = try await change(session.office, .merchant(NSUserName()))
        } catch {
            await session.close()
            complain("\(error)")
            throw exit(for: error)
        }
        let dossier = try? await session.office.dossier(order.number)
        await session.close()
        try OrderCommands.emit(order, events: dossier?.events ?? [], refunds: dossier?.refunds ?? [], json: json)
    }

    static func exit(for error: BackOfficeError) -> CommandExit {
        switch error {
        case .change(.refused), .change(.notFound), .change(.restockAboveOrdered), .refund(.declined), .stock(.unknownProduct),
            .stock(.belowZero), .stock(.negativeCount), .stock(.aboveMaximum):
            ExitCodes.dataError
        case .change(.changed), .change(.refundPending), .refund(.unanswered), .refund(.unfinished): ExitCodes.temporaryFailure
        case .refund(.unreachable): ExitCodes.databaseUnreachable
        case .change(.storage), .stock(.storage): ExitCodes.ioError
        }
    }
}
