import ShopMetrics
import ShopModels
import ShopPorts

/// The provider's charges timed and counted by outcome: what `storefront_payment_seconds` shows for every front.
struct MeteredChargeProcessor: ChargeProcessor {
    let wrapped: any ChargeProcessor
    let provider: String

    func charge(_ request: ChargeRequest) async throws(MerchantBackendError) -> LedgerCharge {
        let started = ContinuousClock.now
        let outcome: String
        defer { recordPayment("charge", provider: provider, outcome: outcome, since: started) }
        do {
            let charge = try await wrapped.charge(request)
            outcome = charge.outcome.metricOutcome
            return charge
        } catch {
            outcome = error.metricOutcome
            throw error
        }
    }

    func recordedCharge(forKey key: String) async throws -> LedgerCharge? { try await wrapped.recordedCharge(forKey: key) }

    func void(key: String, amount: Money) async throws -> LedgerCharge { try await wrapped.void(key: key, amount: amount) }
}

/// The provider's refunds timed and counted by outcome.
struct MeteredRefundProcessor: RefundProcessor {
    let wrapped: any RefundProcessor
    let provider: String

    func refund(_ request: RefundRequest) async throws(RefundFailure) -> String {
        let started = ContinuousClock.now
        let outcome: String
        defer { recordPayment("refund", provider: provider, outcome: outcome, since: started) }
        do {
            let id = try await wrapped.refund(request)
            outcome = "succeeded"
            return id
        } catch {
            switch error {
            case .declined: outcome = "declined"
            case .unreachable: outcome = "unreachable"
            case .unanswered: outcome = "no_answer"
            default: outcome = "pending"
            }
            throw error
        }
    }
}

extension ChargeOutcome {
    var metricOutcome: String {
        switch self {
        case .succeeded: "succeeded"
        case .declined: "declined"
        }
    }
}

extension MerchantBackendError {
    var metricOutcome: String {
        switch self {
        case .declined: "declined"
        case .timedOut: "no_answer"
        case .providerUnreachable: "unreachable"
        case .authenticationRequired: "bank_check"
        default: "refused"
        }
    }
}

/// One charge or refund at the provider, timed under its outcome.
private func recordPayment(_ operation: String, provider: String, outcome: String, since started: ContinuousClock.Instant) {
    ShopMetrics.time(ShopMetrics.payments, [("operation", operation), ("provider", provider), ("outcome", outcome)], ContinuousClock.now - started)
}
