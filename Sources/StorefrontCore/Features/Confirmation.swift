import ShopModels

/// The "Thank you" screen.
public struct ConfirmationState: Equatable, Sendable {
    public var orderNumber: String
    public var total: Money
    public var itemCount: Int
    public var paymentDescription: String
    public var shipTo: String
    public var shippingMethodLabel: String

    public init(orderNumber: String, total: Money, itemCount: Int, paymentDescription: String, shipTo: String, shippingMethodLabel: String) {
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
    static func reduce(_ shell: inout Shell, _ action: Action, _ env: ShopEnvironment) -> Effect {
        if action == .back || action == .confirm { shell.goToShop() }
        return .none
    }
}
