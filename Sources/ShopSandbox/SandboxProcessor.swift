import LiveObjects
import ShopModels
import ShopPorts
import Synchronization

/// The sandbox provider's own records: issued tokens and an idempotent charge ledger.
///
/// Idempotent the way real providers are: the same key with the same parameters returns the
/// first result; the same key with different parameters is an error.
public actor SandboxProcessor: ChargeProcessor, RefundProcessor {
    private static let paymentDataPrefix = "sandbox:"

    /// What the sandbox wallet hands the provider for a card: its id, which `issueToken` reads back.
    public static func paymentData(for card: PaymentMethod) -> String { paymentDataPrefix + card.id }
    public struct Charge: Hashable, Sendable {
        public var key: String
        public var tokenID: String
        public var amount: Money
        public var outcome: SandboxCard.Outcome

        init(_ charge: LedgerCharge) {
            key = charge.key
            tokenID = charge.tokenID
            amount = charge.amount
            switch charge.outcome {
            case .succeeded: outcome = .succeeds
            case .declined(let reason): outcome = .declines(reason)
            }
        }
    }

    /// A fault to inject into the next charges.
    public enum Fault: Sendable {
        /// No answer, and nothing charged.
        case timeoutBeforeCharging
        /// No answer, but the charge went through: a retry with the same key must not charge again.
        case timeoutAfterCharging
        /// No answer to the next refund, which was made: a retry with the same key must not refund again.
        case refundAnswerLost
    }

    private var faults: [Fault] = []
    /// The keys of charges that asked for their card to be kept for off-session renewals, in order (for tests).
    public private(set) var keysSavingCardsForRenewals: [String] = []
    private var issued = 0
    private let clock: any Clock<Duration>
    private let latency: Duration
    /// The provider's records; durable in the shop (SQLite), in memory in tests.
    public nonisolated let ledger: any ChargeLedger

    private let ids: IDGenerator

    public init(
        clock: any Clock<Duration> = ContinuousClock(), latency: Duration = .zero, ledger: any ChargeLedger = InMemoryChargeLedger(),
        ids: IDGenerator = .random
    ) {
        self.ids = ids
        self.clock = clock
        self.latency = latency
        self.ledger = ledger
    }

    /// Every charge the ledger holds, one per idempotency key (kept for tests' assertions).
    public var allCharges: [Charge] { (ledger as? InMemoryChargeLedger)?.all().filter { !$0.isRefund }.map(Charge.init) ?? [] }
    /// Every refund the ledger holds, one per idempotency key (kept for tests' assertions).
    public var allRefunds: [LedgerCharge] { (ledger as? InMemoryChargeLedger)?.all().filter(\.isRefund) ?? [] }
    /// Charges that actually moved money.
    public var successfulCharges: [Charge] { allCharges.filter { $0.outcome == .succeeds } }

    public func inject(_ fault: Fault) { faults.append(fault) }

    /// Takes a card into the vault: what it will do when charged is decided now, from its number,
    /// and written into the card's id, so the number itself is forgotten at once.
    func vault(_ card: CardDetails) async throws(PaymentProviderError) -> PaymentMethod {
        await simulateLatency()
        guard CardEntry.passesLuhn(card.number), card.network.cardLengths.contains(card.number.count) else {
            throw .cardRejected(.incorrectNumber)
        }
        let outcome = SandboxCard.all.first { $0.number == card.number }?.outcome ?? .succeeds
        return PaymentMethod(
            id: SandboxCard.cardID(outcome: outcome, suffix: ids.next()), network: card.network, lastFour: card.lastFour,
            expiry: card.expiry, displayName: "Expires \(card.expiry)"
        )
    }

    func issueToken(for payment: Payment) async throws(PaymentProviderError) -> PaymentToken {
        await simulateLatency()
        let cardID = payment.methodData.hasPrefix(Self.paymentDataPrefix) ? String(payment.methodData.dropFirst(Self.paymentDataPrefix.count)) : ""
        guard let outcome = SandboxCard.outcome(cardID: cardID) else { throw .cardRejected(.incorrectNumber) }
        if outcome == .declines(.incorrectNumber) { throw .cardRejected(.incorrectNumber) }
        issued += 1
        // The token names its card, so a token issued before a restart can still be charged.
        return PaymentToken(id: "tok_sandbox_\(issued)_\(cardID)", paymentMethod: payment.method)
    }

    public func recordedCharge(forKey key: String) async throws -> LedgerCharge? { try await ledger.charge(forKey: key) }

    public func void(key: String, amount: Money) async throws -> LedgerCharge {
        try await ledger.record(LedgerCharge(key: key, tokenID: "void", amount: amount, outcome: .declined(.voided)))
    }

    public func charge(_ request: ChargeRequest) async throws(MerchantBackendError) -> LedgerCharge {
        let (tokenID, amount, key) = (request.tokenID, request.amount, request.idempotencyKey)
        await simulateLatency()
        do {
            if let existing = try await ledger.charge(forKey: key) {
                // A voided key answers every charge with the void, whatever it carries.
                if existing.outcome == .declined(.voided) { return existing }
                guard existing.tokenID == tokenID, existing.amount == amount else { throw MerchantBackendError.idempotencyMismatch }
                return existing
            }
            let fault = faults.isEmpty ? nil : faults.removeFirst()
            if fault == .timeoutBeforeCharging { throw MerchantBackendError.timedOut }
            guard let cardOutcome = Self.outcome(forToken: tokenID) else { throw MerchantBackendError.unavailable("unknown token") }
            let outcome: ChargeOutcome =
                switch cardOutcome {
                case .succeeds: .succeeded
                case .declines(let reason): .declined(reason)
                case .needsAuthenticationOffSession: request.offSession ? .declined(.authenticationRequired) : .succeeded
                }
            // `record` keeps the first record for a key: a void filed by a settlement in between wins here.
            let filed = try await ledger.record(LedgerCharge(key: key, tokenID: tokenID, amount: amount, outcome: outcome))
            if request.savesCardForRenewals { keysSavingCardsForRenewals.append(key) }
            if fault == .timeoutAfterCharging { throw MerchantBackendError.timedOut }
            return filed
        } catch let error as MerchantBackendError {
            throw error
        } catch {
            throw .unavailable("the provider's records failed: \(error)")
        }
    }

    /// Refunds part or all of the charge filed under the request's charge key, once per refund key; the refund is
    /// filed in the same ledger as charges, under its own key.
    public func refund(_ request: RefundRequest) async throws(RefundFailure) -> String {
        await simulateLatency()
        let reference = "re_sandbox_\(request.refundID)"
        do {
            if let existing = try await ledger.charge(forKey: request.idempotencyKey) {
                guard existing.amount == request.amount else {
                    throw RefundFailure.declined("refund key \(request.idempotencyKey) was used for another amount")
                }
                return reference
            }
            guard let charge = try await ledger.charge(forKey: request.chargeKey), charge.outcome == .succeeded else {
                throw RefundFailure.declined("no payment was taken for order \(request.orderNumber)")
            }
            guard request.amount.currency == charge.amount.currency, request.amount.minorUnits <= charge.amount.minorUnits else {
                throw RefundFailure.declined("\(request.amount.formatted) is more than the \(charge.amount.formatted) charged")
            }
            let fault = faults.first == .refundAnswerLost ? faults.removeFirst() : nil
            _ = try await ledger.record(
                LedgerCharge(
                    key: request.idempotencyKey, tokenID: LedgerCharge.refundMark + request.chargeKey, amount: request.amount, outcome: .succeeded))
            if fault != nil { throw RefundFailure.unanswered("the sandbox dropped the answer") }
            return reference
        } catch let failure as RefundFailure {
            throw failure
        } catch {
            throw .unreachable("the provider's records failed: \(error)")
        }
    }

    /// What charging a sandbox token does ("tok_sandbox_<n>_<card id>").
    static func outcome(forToken tokenID: String) -> SandboxCard.Outcome? {
        let parts = tokenID.split(separator: "_", maxSplits: 3)
        guard parts.count == 4, parts[0] == "tok", parts[1] == "sandbox" else { return nil }
        return SandboxCard.outcome(cardID: String(parts[3]))
    }

    private func simulateLatency() async {
        guard latency > .zero else { return }
        try? await clock.sleep(for: latency)
    }
}

/// The sandbox payment provider: turns a sheet's payment into a token for a test card.
public struct SandboxPaymentProvider: PaymentProvider {
    private let processor: SandboxProcessor
    public init(processor: SandboxProcessor) { self.processor = processor }

    public let mode = PaymentMode.sandbox

    public func vault(_ card: CardDetails, forCustomer customerID: String) async throws(PaymentProviderError) -> PaymentMethod {
        try await processor.vault(card)
    }

    /// Every card: the sandbox charges whatever its wallet holds, and declines what it never issued.
    public func canCharge(_ card: PaymentMethod) -> Bool { true }

    /// The sandbox's cards are typed into the shop's form.
    public var cardCollection: CardCollection { .typedInTheShop }
    public var hostedCardSetup: (any HostedCardSetup)? { nil }

    /// The sandbox charges any amount the shop handles.
    public func chargeRefusal(_ total: Money) -> String? { nil }

    public func createToken(for payment: Payment) async throws(PaymentProviderError) -> PaymentToken {
        try await processor.issueToken(for: payment)
    }
}

/// Charges kept in memory: the provider's records for tests and throwaway shops.
public final class InMemoryChargeLedger: ChargeLedger {
    private let charges = Mutex<[String: LedgerCharge]>([:])
    public init() {}

    public func charge(forKey key: String) throws -> LedgerCharge? { charges.withLock { $0[key] } }

    public func record(_ charge: LedgerCharge) throws -> LedgerCharge {
        charges.withLock { all in
            if let existing = all[charge.key] { return existing }
            all[charge.key] = charge
            return charge
        }
    }

    public func all() -> [LedgerCharge] { charges.withLock { $0.values.sorted { $0.key < $1.key } } }
}

extension LedgerCharge {
    /// What a refund's entry in the sandbox's ledger carries before the key of the charge it refunds.
    static let refundMark = "refund-of:"

    /// The entry is a refund, not a charge.
    var isRefund: Bool { tokenID.hasPrefix(Self.refundMark) }
}

extension SandboxProcessor: LiveObject {}
extension InMemoryChargeLedger: LiveObject {}
