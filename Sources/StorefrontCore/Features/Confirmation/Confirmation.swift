import ShopLanguages
import ShopModels

/// The "Thank you" screen.
public struct ConfirmationState: Equatable, Sendable {
    public var orderNumber: String
    public var total: Money
    public var itemCount: Int
    public var paymentDescription: String
    public var shipTo: String
    public var shippingMethodLabel: String
    /// The subscription the order started, in words; nil for an order bought once.
    public var subscription: Localized?

    public init(
        orderNumber: String, total: Money, itemCount: Int, paymentDescription: String, shipTo: String, shippingMethodLabel: String,
        subscription: Localized? = nil
    ) {
        self.subscription = subscription
        self.orderNumber = orderNumber
        self.total = total
        self.itemCount = itemCount
        self.paymentDescription = paymentDescription
        self.shipTo = shipTo
        self.shippingMethodLabel = shippingMethodLabel
    }
}

/// The "Thank you" screen: Enter or Esc goes back to the shop.
@MainActor
enum ConfirmationFeature {
    /// The keys the "Thank you" takes: both go back to the shop.
    enum Action: FeatureKeys {
        case confirm, back

        static let keys: [StorefrontCore.Action: Self] = [.confirm: .confirm, .back: .back]
    }

    static func reduce(_ shell: inout Shell, _ action: Action, _ env: ShopEnvironment) -> Effect {
        switch action {
        case .confirm, .back: shell.goToShop()
        }
        return .none
    }
}
