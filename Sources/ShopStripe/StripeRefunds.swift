import Foundation
import ShopModels
import ShopPorts

/// A Stripe Refund, as the shop reads it.
struct StripeRefund: Decodable, Sendable {
    var id: String
    var amount: Int64
    /// `succeeded`, `pending` (card refunds that the bank has not confirmed yet), `failed` or `canceled`.
    var status: String?
    var metadata: [String: String]?
    var failureReason: String?

    enum CodingKeys: String, CodingKey {
        case id, amount, status, metadata
        case failureReason = "failure_reason"
    }
}

/// A page of Stripe's list of refunds.
struct StripeRefundList: Decodable, Sendable {
    var data: [StripeRefund]
}

/// Refunds on Stripe, once per refund of the shop.
///
/// Order of calls: the order's PaymentIntent, from the shop's records → `GET /v1/refunds?payment_intent=` for a
/// refund carrying this refund's id (made by a try whose answer was lost, or before a crash) → otherwise
/// `POST /v1/refunds` with `payment_intent`, `amount`, the refund's id in its metadata and an idempotency key made
/// from it. Looking first makes a lost answer safe even where the server ignores `Idempotency-Key`.
extension StripeChargeProcessor: RefundProcessor {
    public func refund(_ request: RefundRequest) async throws(RefundFailure) -> String {
        let filed: String?
        do { filed = try await references.paymentReference(forOrderKey: request.chargeKey) } catch {
            throw .unreachable("the shop's records failed: \(error)")
        }
        guard let intent = filed, intent != Self.voidMark else { throw .declined("no Stripe payment is filed for order \(request.orderNumber)") }
        let units: Int64
        switch StripeAmounts.units(request.amount) {
        case .success(let exact): units = exact
        case .failure(let refusal): throw .declined("\(refusal)")
        }
        let stripeKey: String
        do { stripeKey = try await accountScoped(request.idempotencyKey) } catch { throw .unreachable("the shop's records failed: \(error)") }
        let refund: StripeRefund
        do {
            refund = try await client.postLookingFirst(
                "/v1/refunds",
                [
                    ("payment_intent", intent), ("amount", String(units)),
                    ("metadata[refund_id]", request.refundID), ("metadata[order_number]", request.orderNumber), ("metadata[reason]", request.reason),
                ], idempotencyKey: stripeKey
            ) { () async throws(StripeFailure) -> StripeRefund? in
                let made: StripeRefundList = try await client.get("/v1/refunds?payment_intent=\(intent)&limit=100")
                return made.data.first { $0.metadata?["refund_id"] == request.refundID }
            }
        } catch {
            switch error {
            case .refused(let status, let error): throw .declined(error.message ?? "Stripe refused the refund (\(status))")
            case .notSent(let why): throw .unreachable(why)
            case .noAnswer(let why): throw .unanswered(why)
            }
        }
        guard refund.amount == units else { throw .declined("Stripe holds refund \(refund.id) for this refund with another amount") }
        switch refund.status {
        case "failed", "canceled":
            throw .declined("Stripe's refund \(refund.id) \(refund.status ?? "failed"): \(refund.failureReason ?? "no reason given")")
        case "pending", "requires_action": throw .unfinished("Stripe's refund \(refund.id) is \(refund.status ?? "pending")")
        default: return refund.id
        }
    }
}
