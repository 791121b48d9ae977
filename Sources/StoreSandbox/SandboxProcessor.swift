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
    }

    /// A fault to inject into the next charges.
    public enum Fault: Sendable {
        /// No answer, and nothing charged.
        case timeoutBeforeCharging
        /// No answer, but the charge went through: a retry with the same key must not charge again.
        case timeoutAfterCharging
    }

    private var tokens: [String: SandboxCard] = [:]
    private var ledger: [String: Charge] = [:]
    private var faults: [Fault] = []
    private var issued = 0
    private let clock: any Clock<Duration>
    private let latency: Duration

    public init(clock: any Clock<Duration> = ContinuousClock(), latency: Duration = .zero) {
        self.clock = clock
        self.latency = latency
    }

    /// Charges that actually moved money, one per idempotency key.
    public var successfulCharges: [Charge] { ledger.values.filter { $0.outcome == .succeeds }.sorted { $0.key < $1.key } }
    public var allCharges: [Charge] { ledger.values.sorted { $0.key < $1.key } }

    public func inject(_ fault: Fault) { faults.append(fault) }

    func issueToken(for payment: Payment) async throws(PaymentProviderError) -> PaymentToken {
        await simulateLatency()
        let walletID = payment.methodData.hasPrefix("sandbox:") ? String(payment.methodData.dropFirst("sandbox:".count)) : ""
        guard let card = SandboxCard.card(walletID: walletID) else { throw .cardRejected(.incorrectNumber) }
        if card.outcome == .declines(.incorrectNumber) { throw .cardRejected(.incorrectNumber) }
        issued += 1
        let id = "tok_sandbox_\(card.lastFour)_\(issued)"
        tokens[id] = card
        return PaymentToken(id: id, paymentMethod: payment.method)
    }

    func charge(tokenID: String, amount: Money, idempotencyKey key: String) async throws(MerchantBackendError) -> Charge {
        await simulateLatency()
        if let existing = ledger[key] {
            guard existing.tokenID == tokenID, existing.amount == amount else { throw .idempotencyMismatch }
            return existing
        }
        let fault = faults.isEmpty ? nil : faults.removeFirst()
        if fault == .timeoutBeforeCharging { throw .timedOut }
        guard let card = tokens[tokenID] else { throw .unavailable("unknown token") }
        let charge = Charge(key: key, tokenID: tokenID, amount: amount, outcome: card.outcome)
        ledger[key] = charge
        if fault == .timeoutAfterCharging { throw .timedOut }
        return charge
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
