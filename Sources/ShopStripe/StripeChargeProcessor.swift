import Foundation
import ShopModels
import ShopPorts

/// Charges on Stripe through PaymentIntents, never twice for one order.
///
/// Order of calls for a charge: the PaymentIntent the order holds, if any, is retrieved and acted
/// on by its status → otherwise `POST /v1/payment_intents` (with the order's idempotency key) → its
/// id is filed on the order → `POST /v1/payment_intents/{id}/confirm`. Because the id is filed
/// before the confirm and every retry starts from the filed id, a retry, a restart or the
/// start-up settlement finds the one PaymentIntent even when the server ignores `Idempotency-Key`.
public struct StripeChargeProcessor: ChargeProcessor {
    /// The step between creating and confirming, where a process can die; fault tests stop it there.
    public enum Step: String, Sendable, CaseIterable {
        case afterFilingIntent = "after-filing-intent"
    }

    /// What the settlement files on an order it claims as never charged, instead of a PaymentIntent id.
    static let voidMark = "void"

    let client: StripeClient
    let references: any ProviderReferenceRepository
    private let customers: StripeCustomers
    private let returnURL: URL?
    private let reached: @Sendable (Step) -> Void

    /// `returnURL` is where the bank's check (3-D Secure) sends the shopper back to; without one, a card that needs
    /// the check is declined. `reached` is called as each step completes; the shop passes a no-op, fault tests a kill.
    public init(
        client: StripeClient, key: StripeSecretKey, references: any ProviderReferenceRepository, returnURL: URL? = nil,
        reached: @escaping @Sendable (Step) -> Void = { _ in }
    ) {
        self.client = client
        self.references = references
        self.customers = StripeCustomers(client: client, references: references, account: key.account)
        self.returnURL = returnURL
        self.reached = reached
    }

    public func charge(_ request: ChargeRequest) async throws(MerchantBackendError) -> LedgerCharge {
        if let filed = try await records({ try await references.paymentReference(forOrderKey: request.idempotencyKey) }) {
            return try await resume(filed, request)
        }
        // Nothing below charges until the confirm: any failure up to it is "nothing was charged".
        let units: Int64
        switch StripeAmounts.units(request.amount) {
        case .success(let exact): units = exact
        case .failure(let refusal): throw .providerRefused("\(refusal)")
        }
        let intent: StripePaymentIntent
        let stripeKey = try await records { try await accountScoped(request.idempotencyKey) }
        do {
            let customer = try await customers.reference(for: request.customerID)
            intent = try await client.postStep(
                "/v1/payment_intents",
                [
                    ("amount", String(units)), ("currency", request.amount.currency.code.lowercased()),
                    ("customer", customer), ("payment_method", request.tokenID), ("payment_method_types[]", "card"),
                    ("metadata[order_number]", request.orderNumber), ("metadata[idempotency_key]", request.idempotencyKey),
                ] + (request.savesCardForRenewals ? [("setup_future_usage", "off_session")] : []), idempotencyKey: stripeKey)
        } catch {
            throw Self.beforeCharging(error)
        }
        let filed = try await records { try await references.filePaymentReference(intent.id, forOrderKey: request.idempotencyKey) }
        guard filed == intent.id else {
            // Another attempt filed first (a void, or its own PaymentIntent): this one is never confirmed.
            await cancelQuietly(intent.id)
            return try await resume(filed, request)
        }
        reached(.afterFilingIntent)
        return try await confirm(intent.id, request)
    }

    /// `key` as sent to Stripe: Stripe's idempotency keys are per account, and two shops may share one account, so
    /// each shop's keys carry its install id (a renewal's `sub_…_p2_t1` or an order number is the same in both).
    func accountScoped(_ key: String) async throws -> String {
        "storefront-\(try await references.installID())-\(key)"
    }

    public func recordedCharge(forKey key: String) async throws -> LedgerCharge? {
        guard let filed = try await references.paymentReference(forOrderKey: key) else { return nil }
        if filed == Self.voidMark { return Self.voided(key) }
        let intent: StripePaymentIntent = try await client.get("/v1/payment_intents/\(filed)")
        return settledOutcome(intent).map { LedgerCharge(key: key, tokenID: intent.id, amount: Self.amount(intent), outcome: $0) }
    }

    /// Claims the order as never charged: files the void mark, or, when a PaymentIntent is filed,
    /// cancels it. Stripe decides between a cancel and a late confirm; the answer is what happened.
    public func void(key: String, amount: Money) async throws -> LedgerCharge {
        let filed = try await references.filePaymentReference(Self.voidMark, forOrderKey: key)
        if filed == Self.voidMark { return Self.voided(key) }
        if let settled = try await recordedCharge(forKey: key) { return settled }
        let stripeKey = try await accountScoped(key)
        do {
            let _: StripePaymentIntent = try await client.post("/v1/payment_intents/\(filed)/cancel", [], idempotencyKey: "\(stripeKey):cancel")
        } catch .refused {
            // Refused because it moved on (confirmed meanwhile): read what it became.
        }
        if let settled = try await recordedCharge(forKey: key) { return settled }
        throw StripeFailure.noAnswer("PaymentIntent \(filed) is neither paid nor canceled yet")
    }

    /// Acts on the PaymentIntent the order already holds.
    private func resume(_ filed: String, _ request: ChargeRequest) async throws(MerchantBackendError) -> LedgerCharge {
        if filed == Self.voidMark { return Self.voided(request.idempotencyKey) }
        let intent: StripePaymentIntent
        do {
            intent = try await client.get("/v1/payment_intents/\(filed)")
        } catch {
            // A PaymentIntent exists and may have been confirmed: not knowing is a time-out, never "not charged".
            throw Self.afterCreating(error)
        }
        guard Self.amount(intent) == request.amount else {
            throw .idempotencyMismatch
        }
        if let check = intent.bankCheckURL { throw .authenticationRequired(url: check) }
        if let outcome = settledOutcome(intent) { return ledger(request, intent, outcome) }
        switch intent.status {
        case "requires_confirmation", "requires_payment_method": return try await confirm(intent.id, request)
        default: throw .timedOut  // processing: Stripe has not decided yet; the order stays open.
        }
    }

    private func confirm(_ id: String, _ request: ChargeRequest) async throws(MerchantBackendError) -> LedgerCharge {
        let intent: StripePaymentIntent
        // Off-session (a renewal) nobody can pass a bank's check: Stripe fails it with `authentication_required`
        // instead of asking for one, and the charge is declined for that reason.
        let form =
            request.offSession
            ? [("off_session", "true")] : returnURL.map { [("return_url", StripeCardSetup.returning($0, "card-checked"))] } ?? []
        let stripeKey = try await records { try await accountScoped(request.idempotencyKey) }
        do {
            intent = try await client.post("/v1/payment_intents/\(id)/confirm", form, idempotencyKey: "\(stripeKey):confirm")
        } catch .refused(_, let error) where error.declineReason != nil {
            // Declined with nobody there, nobody can pay it: it is canceled, not left open on the account for ever.
            if request.offSession { await cancelQuietly(id) }
            return ledger(request, id: id, .declined(error.declineReason ?? .generic))
        } catch .notSent {
            throw .providerUnreachable
        } catch {
            // Refused for another reason (already confirmed, say) or unanswered: what it is now decides.
            let now: StripePaymentIntent
            do { now = try await client.get("/v1/payment_intents/\(id)") } catch { throw Self.afterCreating(error) }
            if let check = now.bankCheckURL { throw .authenticationRequired(url: check) }
            guard let outcome = settledOutcome(now) else { throw .timedOut }
            return ledger(request, now, outcome)
        }
        if let check = intent.bankCheckURL { throw .authenticationRequired(url: check) }
        guard let outcome = settledOutcome(intent) else { throw .timedOut }
        if outcome == .declined(.authenticationRequired) { await cancelQuietly(id) }
        return ledger(request, intent, outcome)
    }

    /// The shop's outcome for a PaymentIntent that has finished; nil while it can still move (a bank's check that
    /// the shopper may still pass, among others).
    func settledOutcome(_ intent: StripePaymentIntent) -> ChargeOutcome? {
        switch intent.status {
        case "succeeded": .succeeded
        // One canceled after a decline keeps its reason: read again, it is told as the decline it was.
        case "canceled": intent.lastPaymentError.map { .declined($0.declineReason ?? .generic) } ?? .declined(.voided)
        // With no page for the bank to send the shopper back to, the check cannot be offered.
        case "requires_action": intent.bankCheckURL == nil && returnURL == nil ? .declined(.authenticationRequired) : nil
        case "requires_payment_method": intent.lastPaymentError.map { .declined($0.declineReason ?? .generic) }
        default: nil
        }
    }

    private func ledger(_ request: ChargeRequest, _ intent: StripePaymentIntent, _ outcome: ChargeOutcome) -> LedgerCharge {
        LedgerCharge(key: request.idempotencyKey, tokenID: intent.id, amount: Self.amount(intent), outcome: outcome)
    }

    private func ledger(_ request: ChargeRequest, id: String, _ outcome: ChargeOutcome) -> LedgerCharge {
        LedgerCharge(key: request.idempotencyKey, tokenID: id, amount: request.amount, outcome: outcome)
    }

    private static func amount(_ intent: StripePaymentIntent) -> Money {
        StripeAmounts.money(units: intent.amount, currencyCode: intent.currency) ?? Money(minorUnits: intent.amount, currency: .usd)
    }

    private static func voided(_ key: String) -> LedgerCharge {
        LedgerCharge(key: key, tokenID: voidMark, amount: .zero(.usd), outcome: .declined(.voided))
    }

    private func cancelQuietly(_ id: String) async {
        let _: StripePaymentIntent? = try? await client.post("/v1/payment_intents/\(id)/cancel", [], idempotencyKey: "\(id):cancel")
    }

    private func records<T>(_ body: () async throws -> T) async throws(MerchantBackendError) -> T {
        do { return try await body() } catch { throw .unavailable("the shop's records failed: \(error)") }
    }

    /// A failure before the confirm went out: nothing was charged.
    private static func beforeCharging(_ failure: StripeOperationFailure) -> MerchantBackendError {
        switch failure {
        case .records(let why): .unavailable("the shop's records failed: \(why)")
        case .stripe(.notSent), .stripe(.noAnswer): .providerUnreachable
        case .stripe(.refused(_, let error)) where error.type == "idempotency_error":
            .idempotencyMismatch
        case .stripe(.refused(let status, let error)):
            error.declineReason.map { .declined($0) }
                ?? .providerRefused("Stripe refused the payment (\(status)): \(error.message ?? "no reason given")")
        }
    }

    /// A failure once a PaymentIntent exists: a refusal is definite, anything else is not known.
    private static func afterCreating(_ failure: StripeFailure) -> MerchantBackendError {
        switch failure {
        case .refused(let status, let error): .unavailable("Stripe refused (\(status)): \(error.message ?? "no reason given")")
        case .notSent, .noAnswer: .timedOut
        }
    }
}
