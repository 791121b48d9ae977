import ShopLanguages
import ShopModels

/// Why a payment sheet could not be shown, as in the Apple Pay article.
public enum PaymentAuthorizationError: Error, Equatable, Sendable {
    /// The wallet has no card on the merchant's networks: offer "Set up card" instead of Pay.
    case networksNotSupported
    /// The request was invalid, so no controller could be made.
    case unableToInitialize
}

/// The device-level checks and the controller factory, injected as closures: the edge the Apple Pay article puts
/// before a sheet is shown. Nothing here sits in a charge.
///
/// Order of calls for one checkout:
/// 1. `canMakePayments()`: can this device pay at all?
/// 2. `canMakePaymentsUsingNetworks(request.supportedNetworks)`: false means `.networksNotSupported`.
/// 3. `makeController(request)`: nil means `.unableToInitialize`; a fresh controller per checkout.
/// 4. `controller.present()`: what the sheet offers; the shopper's choices and Pay are the checkout's own.
/// 5. On Pay, `paymentData(card)`: what the wallet hands the provider for the card (Apple Pay's payment data).
public struct PaymentAuthorization: Sendable {
    public var canMakePayments: @Sendable () -> Bool
    public var canMakePaymentsUsingNetworks: @Sendable ([PaymentNetwork]) async -> Bool
    public var makeController: @MainActor @Sendable (PaymentRequest) -> (any PaymentAuthorizationControlling)?
    public var paymentData: @Sendable (PaymentMethod) -> String

    public init(
        canMakePayments: @escaping @Sendable () -> Bool,
        canMakePaymentsUsingNetworks: @escaping @Sendable ([PaymentNetwork]) async -> Bool,
        makeController: @escaping @MainActor @Sendable (PaymentRequest) -> (any PaymentAuthorizationControlling)?,
        paymentData: @escaping @Sendable (PaymentMethod) -> String
    ) {
        self.canMakePayments = canMakePayments
        self.canMakePaymentsUsingNetworks = canMakePaymentsUsingNetworks
        self.makeController = makeController
        self.paymentData = paymentData
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

/// The sheet's side of a payment, mirrored from `PKPaymentAuthorizationController`: made for one request, it reads
/// the wallet and says what the sheet offers.
@MainActor
public protocol PaymentAuthorizationControlling: AnyObject {
    /// Shows the sheet; nil when it could not be shown.
    func present() async -> PaymentSheetOptions?
}

/// A contact field the merchant cannot accept, shown next to that field on the sheet.
public struct ContactFieldError: Hashable, Sendable {
    public var field: ContactField
    public var message: Localized
    public init(field: ContactField, message: Localized) {
        self.field = field
        self.message = message
    }
}

/// The wallet a sandbox or real sheet draws its cards and contacts from.
public protocol Wallet: Sendable {
    /// The cards and contacts, with the defaults, read at once.
    func contents() async throws -> WalletContents
}
