import Foundation
import IssueReporting
import LiveObjects
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
    private let openOrders: Result<OpenOrderCheck, MerchantBackendError>
    private let checks = Mutex<[String]>([])
    private let abandoning: Mutex<[Result<OrderStatus, MerchantBackendError>]>
    private let abandoned = Mutex<[String]>([])

    /// `openOrders` is what every check of a customer's open orders finds: nothing open unless the test says.
    /// `abandons` answers each charge given up, in order; one past the end fails the test.
    public init(
        results: [Result<OrderConfirmation, MerchantBackendError>], openOrders: Result<OpenOrderCheck, MerchantBackendError> = .success(.nothingOpen),
        abandons: [Result<OrderStatus, MerchantBackendError>] = []
    ) {
        script = Mutex(results)
        self.openOrders = openOrders
        abandoning = Mutex(abandons)
    }

    /// The idempotency keys of the charges given up, in order.
    public var abandonedKeys: [String] { abandoned.withLock { $0 } }

    public func abandonCharge(idempotencyKey: String) async throws(MerchantBackendError) -> OrderStatus {
        abandoned.withLock { $0.append(idempotencyKey) }
        guard let next = abandoning.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
            reportIssue("MerchantBackendSpy.abandonCharge was called with no scripted answer (idempotency key \(idempotencyKey)).")
            throw .unavailable("no scripted answer")
        }
        return try next.get()
    }

    public var calls: [Call] { recorded.withLock { $0 } }
    /// The customers whose open orders were checked, in order.
    public var openOrderChecks: [String] { checks.withLock { $0 } }

    public func settleOpenOrders(customer: String) async throws(MerchantBackendError) -> OpenOrderCheck {
        checks.withLock { $0.append(customer) }
        return try openOrders.get()
    }

    public func processPayment(token: PaymentToken, order: OrderDraft, idempotencyKey: String) async throws(MerchantBackendError) -> OrderConfirmation
    {
        recorded.withLock { $0.append(Call(tokenID: token.id, total: order.totals.total, idempotencyKey: idempotencyKey)) }
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next else {
            reportIssue("MerchantBackendSpy.processPayment was called with no scripted result left (idempotency key \(idempotencyKey)).")
            throw .unavailable("no scripted result")
        }
        return try next.get()
    }
}

extension MerchantBackendSpy: LiveObject {}
