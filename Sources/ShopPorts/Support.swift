import Foundation

/// A keychain-like repository of small secrets, by key.
public protocol CredentialRepository: Sendable {
    func string(forKey key: String) throws -> String?
    func set(_ value: String, forKey key: String) throws
    func removeValue(forKey key: String) throws
}

/// The features that can be switched on and off without a release.
public enum FeatureFlag: String, Hashable, Sendable, CaseIterable {
    /// One-Tap "Buy now" from the cart.
    case oneTapCart = "one-tap-cart"
    /// One-Tap "Buy now" from a product page.
    case oneTapProduct = "one-tap-product"
}

/// Answers whether a feature is on.
public protocol FeatureFlags: Sendable {
    func isEnabled(_ flag: FeatureFlag) -> Bool
}

/// Makes identifiers: idempotency keys, transaction ids. Injected so tests are deterministic.
public struct IDGenerator: Sendable {
    private let make: @Sendable () -> String
    public init(_ make: @escaping @Sendable () -> String) { self.make = make }
    public func next() -> String { make() }

    public static let random = IDGenerator { UUID().uuidString.lowercased() }
}

/// Reads the wall-clock date (for order timestamps and card expiry). Injected so tests are deterministic.
public struct DateSource: Sendable {
    private let read: @Sendable () -> Date
    public init(_ read: @escaping @Sendable () -> Date) { self.read = read }
    public func now() -> Date { read() }

    public static let system = DateSource { Date() }
}
