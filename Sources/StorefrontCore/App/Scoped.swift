import ShopModels
import ShopPorts

/// A feature's part of the app state, as its reducers see it: what the feature owns (written back whole after it
/// reduces), the shell every feature shares, and, read-only, who the customer is and what it reads of others' state.
///
/// Made by `AppState.scope(_:_:)` from a key path to the feature's property, as TCA's `Scope` does: there is no
/// hand-written getter or setter per feature, so nothing a feature writes can be dropped on the way back.
@dynamicMemberLookup
public struct Scoped<Owned: Equatable>: Equatable {
    public var owned: Owned
    public var shell: Shell
    public let customer: Customer
    public let context: FeatureContext

    public init(owned: Owned, shell: Shell, customer: Customer, context: FeatureContext) {
        self.owned = owned
        self.shell = shell
        self.customer = customer
        self.context = context
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Owned, Value>) -> Value {
        get { owned[keyPath: keyPath] }
        set { owned[keyPath: keyPath] = newValue }
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<Customer, Value>) -> Value { customer[keyPath: keyPath] }
    public subscript<Value>(dynamicMember keyPath: KeyPath<FeatureContext, Value>) -> Value { context[keyPath: keyPath] }
}

/// A scope for the features that change who the customer is or what the shop keeps of them (sign-in, the account):
/// the customer is theirs to write too.
@dynamicMemberLookup
public struct CustomerScoped<Owned: Equatable>: Equatable {
    public var owned: Owned
    public var shell: Shell
    public var customer: Customer
    public let context: FeatureContext

    public init(owned: Owned, shell: Shell, customer: Customer, context: FeatureContext) {
        self.owned = owned
        self.shell = shell
        self.customer = customer
        self.context = context
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Owned, Value>) -> Value {
        get { owned[keyPath: keyPath] }
        set { owned[keyPath: keyPath] = newValue }
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Customer, Value>) -> Value {
        get { customer[keyPath: keyPath] }
        set { customer[keyPath: keyPath] = newValue }
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<FeatureContext, Value>) -> Value { context[keyPath: keyPath] }
}

/// What features read of the state others own, made once per scope from the app state.
public struct FeatureContext: Equatable, Sendable {
    /// Rows the host's list area fits: the size of a list window and of a page.
    public var rowCapacity: Int
    /// The cart's lines, which checkout buys and a sign-in carries into the account's cart.
    public var cartLines: [CartLine]
    /// One-Tap is ready, so the cart offers Buy now.
    public var isOneTapReady: Bool
    /// What the shopper saw before the action being handled; a checkout closed unpaid gives it back.
    public var noticeBeforeAction: Notice?

    public init(rowCapacity: Int = 10, cartLines: [CartLine] = [], isOneTapReady: Bool = false, noticeBeforeAction: Notice? = nil) {
        self.rowCapacity = rowCapacity
        self.cartLines = cartLines
        self.isOneTapReady = isOneTapReady
        self.noticeBeforeAction = noticeBeforeAction
    }

    /// The guest's cart has lines, which a sign-in adds to the account's cart.
    public var hasCartLines: Bool { !cartLines.isEmpty }
}

extension AppState {
    /// What features read of others' state now.
    var context: FeatureContext {
        FeatureContext(
            rowCapacity: listRowCapacity, cartLines: cart.cart.lines, isOneTapReady: account.screen.isOneTapReady,
            noticeBeforeAction: noticeBeforeAction)
    }

    /// Runs `reduce` on the feature state at `path`, with the shell; both are written back after it.
    mutating func scope<Owned, Result>(_ path: WritableKeyPath<AppState, Owned>, _ reduce: (inout Scoped<Owned>) -> Result) -> Result {
        var scoped = Scoped(owned: self[keyPath: path], shell: shell, customer: customer, context: context)
        defer {
            self[keyPath: path] = scoped.owned
            shell = scoped.shell
        }
        return reduce(&scoped)
    }

    /// Runs `reduce` on the feature state at `path`, with the shell and the customer; all three are written back.
    mutating func scope<Owned, Result>(_ path: WritableKeyPath<AppState, Owned>, _ reduce: (inout CustomerScoped<Owned>) -> Result) -> Result {
        var scoped = CustomerScoped(owned: self[keyPath: path], shell: shell, customer: customer, context: context)
        defer {
            self[keyPath: path] = scoped.owned
            shell = scoped.shell
            customer = scoped.customer
        }
        return reduce(&scoped)
    }

    /// The merchant console's state, for its scope: the console a merchant answer finds, made if there was none.
    var console: MerchantFeature.Owned {
        get { merchant ?? MerchantFeature.Owned(console: MerchantConsoleState(merchantName: "")) }
        set { merchant = newValue }
    }
}
