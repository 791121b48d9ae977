import Foundation
import IssueReporting
import ShopModels
import ShopPorts
import StorefrontCore
import Synchronization

/// A payment-sheet controller that records what it was asked and forwards to its delegate like the real one.
///
/// Used without a delegate it fails the test: a real sheet always has one.
@MainActor
public final class PaymentAuthorizationControllerSpy: PaymentAuthorizationControlling {
    public weak var delegate: (any PaymentAuthorizationControllerDelegate)?
    public let request: PaymentRequest
    public var options: PaymentSheetOptions?
    /// The payment handed to the delegate when the shopper confirms.
    public var payment: Payment
    public private(set) var calls: [String] = []
    public private(set) var authorizationResults: [PaymentAuthorizationResult] = []

    public init(request: PaymentRequest, options: PaymentSheetOptions? = Fixtures.sheetOptions, payment: Payment = Fixtures.payment) {
        self.request = request
        self.options = options
        self.payment = payment
    }

    public func present() async -> PaymentSheetOptions? {
        calls.append("present")
        return options
    }

    public func selectPaymentMethod(_ method: PaymentMethod) async -> PaymentRequestUpdate {
        calls.append("selectPaymentMethod(\(method.id))")
        payment.method = method
        return await requireDelegate()?.paymentAuthorizationController(self, didSelectPaymentMethod: method)
            ?? PaymentRequestUpdate(summaryItems: request.summaryItems)
    }

    public func selectShippingContact(_ contact: Contact) async -> ShippingContactUpdate {
        calls.append("selectShippingContact(\(contact.id))")
        payment.shippingContact = contact
        return await requireDelegate()?.paymentAuthorizationController(self, didSelectShippingContact: contact)
            ?? ShippingContactUpdate(summaryItems: request.summaryItems)
    }

    public func selectShippingMethod(_ method: ShippingMethod) async -> PaymentRequestUpdate {
        calls.append("selectShippingMethod(\(method.id))")
        payment.shippingMethod = method
        return await requireDelegate()?.paymentAuthorizationController(self, didSelectShippingMethod: method)
            ?? PaymentRequestUpdate(summaryItems: request.summaryItems)
    }

    public func authorize() async -> PaymentAuthorizationResult {
        calls.append("authorize")
        guard let delegate = requireDelegate() else { return .failure("no delegate") }
        let result = await delegate.paymentAuthorizationController(self, didAuthorizePayment: payment)
        authorizationResults.append(result)
        return result
    }

    public func dismiss() async {
        calls.append("dismiss")
        await requireDelegate()?.paymentAuthorizationControllerDidFinish(self)
    }

    private func requireDelegate() -> (any PaymentAuthorizationControllerDelegate)? {
        if delegate == nil { reportIssue("PaymentAuthorizationControllerSpy was used without a delegate.") }
        return delegate
    }
}

/// A `PaymentAuthorization` whose answers are set by the test and whose factory records every controller it made.
@MainActor
public final class PaymentAuthorizationSpy {
    public var canMakePayments = true
    public var supportsNetworks = true
    public private(set) var requests: [PaymentRequest] = []
    public private(set) var controllers: [PaymentAuthorizationControllerSpy] = []
    public var options: PaymentSheetOptions? = Fixtures.sheetOptions

    public init() {}

    public var authorization: PaymentAuthorization {
        let canPay = canMakePayments
        let networks = supportsNetworks
        return PaymentAuthorization(
            canMakePayments: { canPay },
            canMakePaymentsUsingNetworks: { _ in networks },
            makeController: { [weak self] request in
                guard let self else { return nil }
                self.requests.append(request)
                guard request.validationFailure == nil else { return nil }
                let controller = PaymentAuthorizationControllerSpy(request: request, options: self.options)
                self.controllers.append(controller)
                return controller
            }
        )
    }
}
