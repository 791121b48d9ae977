import LiveObjects
import ShopModels
import ShopPorts

/// Where a screen can send the shopper. Injected, so a feature never reaches an app-wide navigator.
public enum Destination: Hashable, Sendable {
    case oneTapCheckout(OneTapCheckout.EntryPoint)
}

/// Moves the shopper to a destination; the view model is the live one, tests pass a spy.
@MainActor
public protocol Navigator: AnyObject {
    func navigate(to destination: Destination)
}

/// One-Tap "Buy now": the default card, address and cheapest shipping, straight to authorization.
///
/// Knows no globals: its flags and navigator come in through the initializer.
@MainActor
public final class OneTapCheckout {
    public enum EntryPoint: Hashable, Sendable {
        case cart
        /// A product, as the variant with this SKU where the shopper chose one.
        case product(id: ProductID, sku: ProductID? = nil)
    }

    public let entryPoint: EntryPoint
    private let flags: any FeatureFlags
    private weak var navigator: (any Navigator)?

    public init(entryPoint: EntryPoint, flags: any FeatureFlags, navigator: any Navigator) {
        self.entryPoint = entryPoint
        self.flags = flags
        self.navigator = navigator
    }

    /// Whether the entry point's flag is on.
    public var isEnabled: Bool {
        switch entryPoint {
        case .cart: flags.isEnabled(.oneTapCart)
        case .product: flags.isEnabled(.oneTapProduct)
        }
    }

    /// Where "Buy now" goes: the One-Tap checkout, or nowhere when the flag is off.
    public var destination: Destination? {
        isEnabled ? .oneTapCheckout(entryPoint) : nil
    }

    /// Starts the checkout through the navigator; does nothing when the flag is off.
    public func present() {
        guard let destination else { return }
        navigator?.navigate(to: destination)
    }

    /// "Buy now" in a reducer: the destination, as an action reduced in the same step, so no reducer posts anything.
    var buyNow: Effect {
        destination.map { .send(.checkout(.navigate($0))) } ?? .none
    }
}

extension OneTapCheckout: LiveObject {}
