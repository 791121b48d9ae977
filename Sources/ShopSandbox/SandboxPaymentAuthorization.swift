import ShopModels
import ShopPorts
import Synchronization

extension PaymentAuthorization {
    /// The sandbox authorizer: the shopper confirms on the sheet, cards come from `wallet`.
    ///
    /// The wallet read by `canMakePaymentsUsingNetworks` is handed to the controller `makeController` makes next (a
    /// checkout calls them in that order, milliseconds apart), so opening the sheet reads the wallet once, not twice.
    public static func sandbox(wallet: any Wallet, ids: IDGenerator) -> PaymentAuthorization {
        let lastRead = Mutex<WalletContents?>(nil)
        return PaymentAuthorization(
            canMakePayments: { true },
            canMakePaymentsUsingNetworks: { networks in
                let contents = try? await wallet.contents()
                lastRead.withLock { $0 = contents }
                return (contents?.cards ?? []).contains { networks.contains($0.network) }
            },
            makeController: { request in
                let contents = lastRead.withLock { read in
                    defer { read = nil }
                    return read
                }
                guard request.validationFailure == nil else { return nil }
                return SandboxPaymentAuthorizationController(request: request, wallet: wallet, ids: ids, contents: contents)
            }
        )
    }
}

/// The sheet's side in the sandbox: keeps the shopper's choices and reports each one to the delegate.
@MainActor
public final class SandboxPaymentAuthorizationController: PaymentAuthorizationControlling {
    public weak var delegate: (any PaymentAuthorizationControllerDelegate)?
    public let request: PaymentRequest
    private let wallet: any Wallet
    private let ids: IDGenerator
    private var method: PaymentMethod?
    private var contact: Contact?
    private var shippingMethod: ShippingMethod?
    /// The wallet as just read for this checkout, used by the first `present` instead of reading it again.
    private var contents: WalletContents?

    public init(request: PaymentRequest, wallet: any Wallet, ids: IDGenerator, contents: WalletContents? = nil) {
        self.request = request
        self.wallet = wallet
        self.ids = ids
        self.contents = contents
    }

    public func present() async -> PaymentSheetOptions? {
        var read = self.contents
        self.contents = nil
        if read == nil { read = try? await wallet.contents() }
        guard let contents = read else { return nil }
        let methods = contents.cards.filter { request.supportedNetworks.contains($0.network) }
        guard !methods.isEmpty else { return nil }
        let contacts = contents.addresses
        method = methods.first { $0.id == contents.defaultCardID } ?? methods.first
        contact = contacts.first { $0.id == contents.defaultAddressID } ?? contacts.first
        shippingMethod = request.shippingMethods.first
        return PaymentSheetOptions(paymentMethods: methods, contacts: contacts, selectedPaymentMethod: method, selectedContact: contact)
    }

    public func selectPaymentMethod(_ method: PaymentMethod) async -> PaymentRequestUpdate {
        self.method = method
        return await delegate?.paymentAuthorizationController(self, didSelectPaymentMethod: method)
            ?? PaymentRequestUpdate(summaryItems: request.summaryItems)
    }

    public func selectShippingContact(_ contact: Contact) async -> ShippingContactUpdate {
        self.contact = contact
        return await delegate?.paymentAuthorizationController(self, didSelectShippingContact: contact)
            ?? ShippingContactUpdate(summaryItems: request.summaryItems)
    }

    public func selectShippingMethod(_ method: ShippingMethod) async -> PaymentRequestUpdate {
        shippingMethod = method
        return await delegate?.paymentAuthorizationController(self, didSelectShippingMethod: method)
            ?? PaymentRequestUpdate(summaryItems: request.summaryItems)
    }

    public func authorize() async -> PaymentAuthorizationResult {
        guard let method, let contact, let shippingMethod, let delegate else {
            return .failure("Choose a card, an address and a shipping method first.")
        }
        let payment = Payment(
            method: method, methodData: "sandbox:\(method.id)", shippingContact: contact,
            shippingMethod: shippingMethod, transactionIdentifier: ids.next()
        )
        return await delegate.paymentAuthorizationController(self, didAuthorizePayment: payment)
    }

    public func dismiss() async {
        await delegate?.paymentAuthorizationControllerDidFinish(self)
    }
}
