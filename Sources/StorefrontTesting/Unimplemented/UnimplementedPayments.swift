import ShopModels
import ShopPorts

/// A payment provider a test did not set up: vaulting a card or making a token fails the test.
public struct UnimplementedPaymentProvider: PaymentProvider {
    public init() {}
    public var mode: PaymentMode { .sandbox }

    public func vault(_ card: CardDetails, forCustomer customerID: String) async throws(PaymentProviderError) -> PaymentMethod {
        unimplemented("PaymentProvider", "vault(_:forCustomer:)")
        throw .unavailable("PaymentProvider is not set up in this test")
    }

    public func createToken(for payment: Payment) async throws(PaymentProviderError) -> PaymentToken {
        unimplemented("PaymentProvider", "createToken(for:)")
        throw .unavailable("PaymentProvider is not set up in this test")
    }

    public func canCharge(_ card: PaymentMethod) -> Bool {
        unimplemented("PaymentProvider", "canCharge(_:)")
        return false
    }

    public func chargeRefusal(_ total: Money) -> String? {
        unimplemented("PaymentProvider", "chargeRefusal(_:)")
        return nil
    }

    public var cardCollection: CardCollection {
        unimplemented("PaymentProvider", "cardCollection")
        return .typedInTheShop
    }

    public var hostedCardSetup: (any HostedCardSetup)? {
        unimplemented("PaymentProvider", "hostedCardSetup")
        return nil
    }
}

/// A merchant backend a test did not set up: a charge fails the test.
public struct UnimplementedMerchantBackend: MerchantBackend {
    public init() {}

    public func processPayment(token: PaymentToken, order: OrderDraft, idempotencyKey: String) async throws(MerchantBackendError) -> OrderConfirmation
    {
        unimplemented("MerchantBackend", "processPayment(token:order:idempotencyKey:)")
        throw .unavailable("MerchantBackend is not set up in this test")
    }

    public func settleOpenOrders(customer: String) async throws(MerchantBackendError) -> OpenOrderCheck {
        unimplemented("MerchantBackend", "settleOpenOrders(customer:)")
        throw .unavailable("MerchantBackend is not set up in this test")
    }

    public func abandonCharge(idempotencyKey: String) async throws(MerchantBackendError) -> OrderStatus {
        unimplemented("MerchantBackend", "abandonCharge(idempotencyKey:)")
        throw .unavailable("MerchantBackend is not set up in this test")
    }
}

extension PaymentAuthorization {
    /// The device's checks and controller factory, each failing the test when called.
    public static let unimplemented = PaymentAuthorization(
        canMakePayments: {
            StorefrontTesting.unimplemented("PaymentAuthorization", "canMakePayments")
            return false
        },
        canMakePaymentsUsingNetworks: { _ in
            StorefrontTesting.unimplemented("PaymentAuthorization", "canMakePaymentsUsingNetworks")
            return false
        },
        makeController: { _ in
            StorefrontTesting.unimplemented("PaymentAuthorization", "makeController")
            return nil
        },
        paymentData: { _ in
            StorefrontTesting.unimplemented("PaymentAuthorization", "paymentData")
            return ""
        }
    )
}
