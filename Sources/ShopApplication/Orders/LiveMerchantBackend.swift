import Foundation
import LiveObjects
import ShopModels
import ShopPorts

/// The merchant backend the shop runs on, whatever the provider: starts the order (reserving stock),
/// charges through the provider, and settles the order. The same idempotency key never charges twice.
///
/// Order of calls per payment: `orders.begin` (reserves) → `processor.charge` → `orders.finish`.
public actor LiveMerchantBackend: MerchantBackend, OpenCharges {
    /// The steps between which a process can die; fault tests stop the process at each.
    public enum Step: String, Sendable, CaseIterable {
        case afterReserving = "after-reserving"
        case afterCharging = "after-charging"
        case afterRecording = "after-recording"
    }

    private let processor: any ChargeProcessor
    private let orders: any OrderRepository
    let dates: DateSource
    private let reached: @Sendable (Step) -> Void
    /// Where the subscriptions paid orders start are kept; nil where the shop keeps none (a draft that starts one is
    /// refused before it is charged).
    let subscriptions: (any SubscriptionRepository)?

    /// `reached` is called as each step completes; the shop passes a no-op, fault tests a kill.
    public init(
        processor: any ChargeProcessor, orders: any OrderRepository, dates: DateSource, subscriptions: (any SubscriptionRepository)? = nil,
        reached: @escaping @Sendable (Step) -> Void = { _ in }
    ) {
        self.subscriptions = subscriptions
        self.processor = processor
        self.orders = orders
        self.dates = dates
        self.reached = reached
    }

    public func processPayment(token: PaymentToken, order draft: OrderDraft, idempotencyKey: String) async throws(MerchantBackendError)
        -> OrderConfirmation
    {
        if draft.subscription != nil || draft.renews != nil, subscriptions == nil { throw .unavailable("this shop keeps no subscriptions") }
        let order: Order
        do {
            order = try await orders.begin(
                draft, idempotencyKey: idempotencyKey, tokenID: token.id, paymentDescription: token.paymentMethod.shortName, placedAt: dates.now())
        } catch {
            throw Self.backendError(error)
        }
        reached(.afterReserving)
        if order.totals.total != draft.totals.total { throw .idempotencyMismatch }
        switch order.status {
        case _ where order.status.wasCharged:
            // Asked again after it was paid (its answer was lost): the subscription it starts is made if it was not.
            await subscriptionsAfterPaying(draft, order: order, card: token.paymentMethod)
            return OrderConfirmation(orderNumber: order.number, total: order.totals.total)
        case .declined, .voided:
            // The same key gives the first result: the reason the provider filed, when it filed one.
            if case .declined(let reason)? = try? await processor.recordedCharge(forKey: idempotencyKey)?.outcome { throw .declined(reason) }
            throw .declined(.generic)
        default: break
        }
        let charge: LedgerCharge
        do {
            charge = try await processor.charge(
                ChargeRequest(
                    tokenID: token.id, amount: draft.totals.total, idempotencyKey: idempotencyKey,
                    orderNumber: order.number, customerID: draft.customerID, offSession: draft.offSession,
                    // The card of a subscription's first order, and the one a subscriber pays a missed delivery with
                    // (it is charged from then on), is set up for the renewals' off-session charges.
                    savesCardForRenewals: draft.subscription != nil || (draft.renews != nil && !draft.offSession)))
        } catch .timedOut {
            // The charge may or may not have happened: the order stays open and a retry with the same key settles it.
            try? await orders.finish(orderNumber: order.number, status: .unknown, failure: nil, at: dates.now())
            throw .timedOut
        } catch .authenticationRequired(let url) {
            // The bank's check decides: the order stays open (charging), and the same key asks again how it stands.
            throw .authenticationRequired(url: url)
        } catch {
            try? await orders.finish(orderNumber: order.number, status: .voided, failure: "\(error)", at: dates.now())
            throw error
        }
        reached(.afterCharging)
        do {
            if case .declined(let reason) = charge.outcome {
                try await orders.finish(orderNumber: order.number, status: .declined, failure: reason.message, at: dates.now())
                throw MerchantBackendError.declined(reason)
            }
            try await orders.finish(orderNumber: order.number, status: .paid, failure: nil, at: dates.now())
            reached(.afterRecording)
            await subscriptionsAfterPaying(draft, order: order, card: token.paymentMethod)
        } catch let error as MerchantBackendError {
            throw error
        } catch {
            throw Self.backendError(error)
        }
        return OrderConfirmation(orderNumber: order.number, total: order.totals.total)
    }

    /// What a settlement did: the orders it settled, and those it had to leave open for now.
    public struct Settlement: Sendable {
        public var settled: [(number: String, status: OrderStatus)] = []
        /// Orders the provider could not answer for (unreachable, or still deciding); the next start tries again.
        public var leftOpen: [(number: String, reason: String)] = []
    }

    /// Settles orders left open by a stop or an unanswered charge, from the provider's records:
    /// charged means paid, declined means declined, no record means it was never charged (canceled,
    /// stock released). Run at start, before any shopper pays.
    ///
    /// Only orders open for longer than `minimumAge` are touched: another process sharing the
    /// database may be in the middle of charging a younger one. An older one may still be charged
    /// too (its process was stopped, not killed), so "never charged" is a claim, not a guess: a void
    /// is filed under the order's idempotency key first, and the provider keeps the first record for
    /// a key. Either the void wins, and the late charge gets the void instead of money, or the
    /// charge won, and the order is settled as paid. Never both.
    ///
    /// An order the provider cannot answer for is left open and named; only the shop's own database
    /// failing stops the settlement.
    public func reconcile(minimumAge: Duration = chargeInFlightAge) async throws -> Settlement {
        var result = Settlement()
        // An age of zero settles every open order, whatever the wall clock says about when it was
        // placed (a clock stepped back would otherwise make a just-placed order look younger than zero).
        let cutoff = minimumAge <= .zero ? Date.distantFuture : dates.now().addingTimeInterval(-Double(minimumAge.components.seconds))
        for order in try await orders.unsettledOrders() where order.placedAt <= cutoff {
            do {
                result.settled.append((order.number, try await settle(order)))
            } catch let failure as ProviderCouldNotAnswer {
                result.leftOpen.append((order.number, failure.reason))
            }
        }
        return result
    }

    public func settleOpenOrders(customer: String) async throws(MerchantBackendError) -> OpenOrderCheck {
        var check = OpenOrderCheck.nothingOpen
        do {
            // A charge younger than this may be under way in another session of the same customer: theirs to finish.
            let underWay = dates.now().addingTimeInterval(-Double(Self.chargeInFlightAge.components.seconds))
            for order in try await orders.unsettledOrders() where order.customerID == customer {
                if order.status == .charging, order.placedAt > underWay {
                    check.stillOpen.append(order.number)
                    continue
                }
                do {
                    if try await settle(order) == .paid, let paid = try await orders.order(number: order.number) { check.paid.append(paid) }
                } catch is ProviderCouldNotAnswer {
                    check.stillOpen.append(order.number)
                }
            }
        } catch {
            throw Self.backendError(error)
        }
        return check
    }

    public func abandonCharge(idempotencyKey: String) async throws(MerchantBackendError) -> OrderStatus {
        do {
            guard let order = try await orders.unsettledOrders().first(where: { $0.idempotencyKey == idempotencyKey }) else {
                // Settled meanwhile (the check passed as the shopper left it): the order says how.
                throw MerchantBackendError.unavailable("no open order for this payment")
            }
            return try await settle(order)
        } catch let error as MerchantBackendError {
            throw error
        } catch is ProviderCouldNotAnswer {
            throw .timedOut
        } catch {
            throw Self.backendError(error)
        }
    }

    /// Settles order `number` when the provider's records say how its charge ended, and returns its status then; nil
    /// when the order is settled already or not known. Never voids: a provider's notice of a charge still deciding
    /// leaves the order open, and an order still being charged keeps its own charge.
    public func openOrderNumber(idempotencyKey: String) async throws -> String? {
        try await orders.unsettledOrders().first { $0.idempotencyKey == idempotencyKey }?.number
    }

    public func settleFromProvider(orderNumber number: String) async throws -> OrderStatus? {
        guard let order = try await orders.unsettledOrders().first(where: { $0.number == number }) else { return nil }
        let recorded: LedgerCharge?
        do { recorded = try await processor.recordedCharge(forKey: order.idempotencyKey) } catch { throw ProviderCouldNotAnswer(reason: "\(error)") }
        guard let outcome = recorded?.outcome else { return order.status }
        let (status, failure) = Self.settlement(outcome)
        try await orders.finish(orderNumber: number, status: status, failure: failure, at: dates.now())
        return status
    }

    /// How long a charge may take before an order still `.charging` is taken as stopped: the start-up settlement's age.
    public static let chargeInFlightAge: Duration = .seconds(120)

    /// Settles one open order from the provider's records and returns its status: charged means paid, declined means
    /// declined, no record means it was never charged (canceled, stock released). Throws `ProviderCouldNotAnswer`
    /// when the provider cannot say yet, and the shop's own storage errors as they are.
    private func settle(_ order: UnsettledOrder) async throws -> OrderStatus {
        let outcome: ChargeOutcome
        do {
            if let recorded = try await processor.recordedCharge(forKey: order.idempotencyKey) {
                outcome = recorded.outcome
            } else {
                outcome = try await processor.void(key: order.idempotencyKey, amount: order.total).outcome
            }
        } catch {
            throw ProviderCouldNotAnswer(reason: "\(error)")
        }
        let (status, failure) = Self.settlement(outcome)
        try await orders.finish(orderNumber: order.number, status: status, failure: failure, at: dates.now())
        return status
    }

    /// The status and failure an order is settled with for a charge's outcome.
    private static func settlement(_ outcome: ChargeOutcome) -> (OrderStatus, String?) {
        switch outcome {
        case .succeeded: (.paid, nil)
        case .declined(.voided): (.voided, "never charged")
        case .declined(let reason): (.declined, reason.message)
        }
    }

    /// The provider could not say how an order's charge ended (unreachable, or still deciding).
    public struct ProviderCouldNotAnswer: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { "the payment provider could not say how the charge ended: \(reason)" }
    }

    private static func backendError(_ error: any Error) -> MerchantBackendError {
        switch error as? OrderRepositoryError {
        case .soldOut(let name, let available): .soldOut(productName: name, available: available)
        case .idempotencyMismatch: .idempotencyMismatch
        case .discountRefused(let refusal): .discountRefused(refusal)
        case .storage(let why): .unavailable(why)
        case nil: .unavailable("\(error)")
        }
    }
}

extension LiveMerchantBackend: LiveObject {}
