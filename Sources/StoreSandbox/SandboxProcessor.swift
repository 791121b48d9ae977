import Synchronization
import StoreClients
import StoreModels

/// The sandbox provider's own records: issued tokens and an idempotent charge ledger.
///
/// Idempotent the way real providers are: the same key with the same parameters returns the
/// first result; the same key with different parameters is an error.
public actor SandboxProcessor {
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
    }

    private var faults: [Fault] = []
    private var issued = 0
    private let clock: any Clock<Duration>
    private let latency: Duration
    /// The provider's records; durable in the shop (SQLite), in memory in tests.
    public nonisolated let ledger: any ChargeLedger

    public init(clock: any Clock<Duration> = ContinuousClock(), latency: Duration = .zero, ledger: any ChargeLedger = InMemoryChargeLedger()) {
        self.clock = clock
        self.latency = latency
        self.ledger = ledger
    }

    /// Every charge the ledger holds, one per idempotency key (kept for tests' assertions).
    public var allCharges: [Charge] { (ledger as? InMemoryChargeLedger)?.all().map(Charge.init) ?? [] }
    /// Charges that actually moved money.
    public var successfulCharges: [Charge] { allCharges.filter { $0.outcome == .succeeds } }

    public func inject(_ fault: Fault) { faults.append(fault) }

    func issueToken(for payment: Payment) async throws(PaymentProviderError) -> PaymentToken {
        await simulateLatency()
        let walletID = payment.methodData.hasPrefix("sandbox:") ? String(payment.methodData.dropFirst("sandbox:".count)) : ""
        guard let card = SandboxCard.card(walletID: walletID) else { throw .cardRejected(.incorrectNumber) }
        if card.outcome == .declines(.incorrectNumber) { throw .cardRejected(.incorrectNumber) }
        issued += 1
        // The token names its card, so a token issued before a restart can still be charged.
        return PaymentToken(id: "tok_sandbox_\(issued)_\(card.walletID)", paymentMethod: payment.method)
    }

    func charge(tokenID: String, amount: Money, idempotencyKey key: String) async throws(MerchantBackendError) -> Charge {
        await simulateLatency()
        do {
            if let existing = try ledger.charge(forKey: key) {
                guard existing.tokenID == tokenID, existing.amount == amount else { throw MerchantBackendError.idempotencyMismatch }
                return Charge(existing)
            }
            let fault = faults.isEmpty ? nil : faults.removeFirst()
            if fault == .timeoutBeforeCharging { throw MerchantBackendError.timedOut }
            guard let card = Self.card(forToken: tokenID) else { throw MerchantBackendError.unavailable("unknown token") }
            let outcome: ChargeOutcome = switch card.outcome {
            case .succeeds: .succeeded
            case .declines(let reason): .declined(reason)
            }
            let filed = try ledger.record(LedgerCharge(key: key, tokenID: tokenID, amount: amount, outcome: outcome))
            if fault == .timeoutAfterCharging { throw MerchantBackendError.timedOut }
            return Charge(filed)
        } catch let error as MerchantBackendError {
            throw error
        } catch {
            throw .unavailable("the provider's records failed: \(error)")
        }
    }

    /// The card a sandbox token was issued for ("tok_sandbox_<n>_<wallet id>").
    static func card(forToken tokenID: String) -> SandboxCard? {
        let parts = tokenID.split(separator: "_", maxSplits: 3)
        guard parts.count == 4, parts[0] == "tok", parts[1] == "sandbox" else { return nil }
        return SandboxCard.card(walletID: String(parts[3]))
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
