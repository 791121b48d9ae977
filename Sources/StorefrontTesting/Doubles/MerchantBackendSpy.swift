import Foundation
import IssueReporting
import ShopModels
import ShopPorts
import StorefrontCore
import Synchronization

/// A merchant backend that plays back scripted results in order and records each call.
///
/// A call past the end of the script is a test that did not expect it: it fails the test.
public final class MerchantBackendSpy: MerchantBackend {
    public struct Call: Hashable, Sendable {
        public var tokenID: String
        public var total: Money
        public var idempotencyKey: String
    }

    private let script: Mutex<[Result<OrderConfirmation, MerchantBackendError>]>
    private let recorded = Mutex<[Call]>([])

    public init(results: [Result<OrderConfirmation, MerchantBackendError>]) {
        script = Mutex(results)
    }

    public var calls: [Call] { recorded.withLock { $0 } }

    public func processPayment(token: PaymentToken, order: OrderDraft, idempotencyKey: String) async throws(MerchantBackendError) -> OrderConfirmation {
        recorded.withLock { $0.append(Call(tokenID: token.id, total: order.totals.total, idempotencyKey: idempotencyKey)) }
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next else {
            reportIssue("MerchantBackendSpy.processPayment was called with no scripted result left (idempotency key \(idempotencyKey)).")
            throw .unavailable("no scripted result")
        }
        return try next.get()
    }
}
