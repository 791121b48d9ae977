import Foundation
import LiveObjects
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore
import Synchronization

/// A payment-sheet controller that records what it was asked and offers the options the test set.
@MainActor
public final class PaymentAuthorizationControllerSpy: PaymentAuthorizationControlling {
    public let request: PaymentRequest
    public var options: PaymentSheetOptions?
    public private(set) var calls: [String] = []

    public init(request: PaymentRequest, options: PaymentSheetOptions? = Fixtures.sheetOptions) {
        self.request = request
        self.options = options
    }

    public func present() async -> PaymentSheetOptions? {
        calls.append("present")
        return options
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
            },
            paymentData: { SandboxProcessor.paymentData(for: $0) }
        )
    }
}

extension PaymentAuthorizationControllerSpy: LiveObject {}
extension PaymentAuthorizationSpy: LiveObject {}
