import ShopPorts

/// Feature flags fixed at start-up (the shop reads them from its configuration).
public struct StaticFeatureFlags: FeatureFlags {
    public var enabled: Set<FeatureFlag>
    public init(enabled: Set<FeatureFlag>) { self.enabled = enabled }
    public func isEnabled(_ flag: FeatureFlag) -> Bool { enabled.contains(flag) }

    /// Both One-Tap entry points are on unless switched off.
    public static let defaults = StaticFeatureFlags(enabled: [.oneTapCart, .oneTapProduct])

    /// Parses a One-Tap setting: "on"/"all", "off"/"none", or entry points "cart", "product" separated by commas.
    public static func parseOneTap(_ value: String) throws -> Set<FeatureFlag> {
        var flags: Set<FeatureFlag> = []
        for part in value.lowercased().split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            switch part {
            case "on", "all", "true", "1": flags.formUnion([.oneTapCart, .oneTapProduct])
            case "off", "none", "false", "0", "": break
            case "cart": flags.insert(.oneTapCart)
            case "product": flags.insert(.oneTapProduct)
            default: throw FeatureFlagError(value: String(part))
            }
        }
        return flags
    }
}

/// A One-Tap setting that names no known entry point.
public struct FeatureFlagError: Error, CustomStringConvertible {
    public var value: String
    public var description: String { "unknown One-Tap setting \"\(value)\": use on, off, cart, product, or cart,product" }
}
