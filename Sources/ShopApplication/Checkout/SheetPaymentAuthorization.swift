import LiveObjects
import ShopModels
import ShopPorts
import Synchronization

extension PaymentAuthorization {
    /// The authorizer every shop runs on, whatever its provider: the shopper confirms on the payment sheet with a card
    /// from `wallet`, and `methodData` says what the provider makes a token from for that card.
    ///
    /// The wallet read by `canMakePaymentsUsingNetworks` is handed to the controller `makeController` makes next (a
    /// checkout calls them in that order, milliseconds apart), so opening the sheet reads the wallet once, not twice.
    public static func onTheSheet(wallet: any Wallet, methodData: @escaping @Sendable (PaymentMethod) -> String) -> PaymentAuthorization {
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
                return SheetPaymentAuthorizationController(request: request, wallet: wallet, contents: contents)
            },
            paymentData: methodData
        )
    }
}

/// The sheet's side: reads the wallet and offers its cards on the request's networks.
@MainActor
public final class SheetPaymentAuthorizationController: PaymentAuthorizationControlling {
    public let request: PaymentRequest
    private let wallet: any Wallet
    /// The wallet as just read for this checkout, used by the first `present` instead of reading it again.
    private var contents: WalletContents?

    public init(request: PaymentRequest, wallet: any Wallet, contents: WalletContents? = nil) {
        self.request = request
        self.wallet = wallet
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
        let method = methods.first { $0.id == contents.defaultCardID } ?? methods.first
        let contact = contacts.first { $0.id == contents.defaultAddressID } ?? contacts.first
        return PaymentSheetOptions(paymentMethods: methods, contacts: contacts, selectedPaymentMethod: method, selectedContact: contact)
    }
}

extension SheetPaymentAuthorizationController: LiveObject {}
