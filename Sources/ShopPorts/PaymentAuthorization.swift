import ShopModels

/// Why a payment sheet could not be shown, as in the Apple Pay article.
public enum PaymentAuthorizationError: Error, Equatable, Sendable {
    /// The wallet has no card on the merchant's networks: offer "Set up card" instead of Pay.
    case networksNotSupported
    /// The request was invalid, so no controller could be made.
    case unableToInitialize
}

/// The device-level checks and the controller factory, injected as closures.
///
/// Order of calls for one checkout:
/// 1. `canMakePayments()`: can this device pay at all?
/// 2. `canMakePaymentsUsingNetworks(request.supportedNetworks)`: false means `.networksNotSupported`.
/// 3. `makeController(request)`: nil means `.unableToInitialize`; a fresh controller per checkout.
/// 4. `controller.present()`, then delegate events until `didFinish`.
public struct PaymentAuthorization: Sendable {
    public var canMakePayments: @Sendable () -> Bool
    public var canMakePaymentsUsingNetworks: @Sendable ([PaymentNetwork]) async -> Bool
    public var makeController: @MainActor @Sendable (PaymentRequest) -> (any PaymentAuthorizationControlling)?

    public init(
        canMakePayments: @escaping @Sendable () -> Bool,
        canMakePaymentsUsingNetworks: @escaping @Sendable ([PaymentNetwork]) async -> Bool,
        makeController: @escaping @MainActor @Sendable (PaymentRequest) -> (any PaymentAuthorizationControlling)?
    ) {
        self.canMakePayments = canMakePayments
        self.canMakePaymentsUsingNetworks = canMakePaymentsUsingNetworks
        self.makeController = makeController
    }
}

/// What the sheet offers the shopper once presented: the wallet's cards and contacts, and the defaults.
public struct PaymentSheetOptions: Hashable, Sendable {
    public var paymentMethods: [PaymentMethod]
    public var contacts: [Contact]
    public var selectedPaymentMethod: PaymentMethod?
    public var selectedContact: Contact?

    public init(paymentMethods: [PaymentMethod], contacts: [Contact], selectedPaymentMethod: PaymentMethod?, selectedContact: Contact?) {
        self.paymentMethods = paymentMethods
        self.contacts = contacts
        self.selectedPaymentMethod = selectedPaymentMethod
        self.selectedContact = selectedContact
    }
}

/// The sheet's side of a payment, mirrored from `PKPaymentAuthorizationController`.
///
/// The shopper's choices on the sheet arrive here; the controller reports each to its delegate
/// and hands back the delegate's answer.
@MainActor
public protocol PaymentAuthorizationControlling: AnyObject {
    var delegate: (any PaymentAuthorizationControllerDelegate)? { get set }
    /// Shows the sheet; nil when it could not be shown.
    func present() async -> PaymentSheetOptions?
    func selectPaymentMethod(_ method: PaymentMethod) async -> PaymentRequestUpdate
    func selectShippingContact(_ contact: Contact) async -> ShippingContactUpdate
    func selectShippingMethod(_ method: ShippingMethod) async -> PaymentRequestUpdate
    /// The shopper confirmed (our stand-in for Touch ID): the delegate gets `didAuthorizePayment`.
    func authorize() async -> PaymentAuthorizationResult
    /// The sheet went away, authorized or not: the delegate gets `didFinish`.
    func dismiss() async
}

/// The app's side of a payment, as in `PKPaymentAuthorizationControllerDelegate`.
@MainActor
public protocol PaymentAuthorizationControllerDelegate: AnyObject {
    func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didSelectPaymentMethod method: PaymentMethod) async
        -> PaymentRequestUpdate
    func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didSelectShippingContact contact: Contact) async
        -> ShippingContactUpdate
    func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didSelectShippingMethod method: ShippingMethod) async
        -> PaymentRequestUpdate
    func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didAuthorizePayment payment: Payment) async
        -> PaymentAuthorizationResult
    func paymentAuthorizationControllerDidFinish(_ controller: any PaymentAuthorizationControlling) async
}

/// New summary items after a choice on the sheet.
public struct PaymentRequestUpdate: Hashable, Sendable {
    public var summaryItems: [SummaryItem]
    public init(summaryItems: [SummaryItem]) { self.summaryItems = summaryItems }
}

/// A contact field the merchant cannot accept, shown next to that field on the sheet.
public struct ContactFieldError: Hashable, Sendable {
    public var field: ContactField
    public var message: String
    public init(field: ContactField, message: String) {
        self.field = field
        self.message = message
    }
}

/// The answer to a new shipping contact: new summary items, or the fields that are wrong.
public struct ShippingContactUpdate: Hashable, Sendable {
    public var summaryItems: [SummaryItem]
    public var errors: [ContactFieldError]
    public init(summaryItems: [SummaryItem], errors: [ContactFieldError] = []) {
        self.summaryItems = summaryItems
        self.errors = errors
    }
}

/// The outcome of an authorized payment, as in `PKPaymentAuthorizationResult`.
public struct PaymentAuthorizationResult: Hashable, Sendable {
    public enum Status: Hashable, Sendable { case success, failure }
    public var status: Status
    /// What went wrong, in words for the shopper; empty on success.
    public var errors: [String]

    public init(status: Status, errors: [String] = []) {
        self.status = status
        self.errors = errors
    }

    public static let success = PaymentAuthorizationResult(status: .success)
    public static func failure(_ message: String) -> PaymentAuthorizationResult {
        PaymentAuthorizationResult(status: .failure, errors: [message])
    }
}

/// The wallet a sandbox or real sheet draws its cards and contacts from.
public protocol Wallet: Sendable {
    /// The cards and contacts, with the defaults, read at once.
    func contents() async throws -> WalletContents
}
