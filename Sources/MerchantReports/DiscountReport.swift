import Foundation
import ShopModels

/// How `storefront discounts` prints codes: one line each, or a JSON document.
public enum DiscountReport {
    /// "10% off; 3 uses, 1 a customer; from … until …; at least $20.00; only mug, tee-m; paused".
    public static func terms(_ code: DiscountCode) -> String {
        var parts: [String] = []
        switch code.kind {
        case .percentage(let points): parts.append("\(percent(points))% off")
        case .fixed(let amount): parts.append("\(amount.formatted) off")
        case .freeShipping: parts.append("free shipping")
        }
        let uses = [code.totalUses.map { "\($0) use\($0 == 1 ? "" : "s")" }, code.usesPerCustomer.map { "\($0) a customer" }].compactMap { $0 }
        if !uses.isEmpty { parts.append(uses.joined(separator: ", ")) }
        if let from = code.startsAt { parts.append("from \(UTCTime(from).minutes) UTC") }
        if let until = code.endsAt { parts.append("until \(UTCTime(until).minutes) UTC") }
        if let minimum = code.minimumSubtotal { parts.append("at least \(minimum.formatted)") }
        if !code.onlyFor.isEmpty { parts.append("only " + code.onlyFor.map(\.description).sorted().joined(separator: ", ")) }
        if code.isPaused { parts.append("paused") }
        return parts.joined(separator: "; ")
    }

    /// "LAUNCH  10% off; 100 uses  (used 3)".
    public static func line(_ code: DiscountCode, uses: Int) -> String {
        "\(code.code)  \(terms(code))  (used \(uses))"
    }

    /// `{"version": 1, "codes": [...]}`: each code's terms, amounts as minor units and plain text, and its uses held.
    public static func json(_ codes: [(code: DiscountCode, uses: Int)]) throws -> String {
        try jsonText(["version": 1, "codes": codes.map { document($0.code, uses: $0.uses) }])
    }

    static func document(_ code: DiscountCode, uses: Int) -> [String: Any] {
        func optional(_ value: Any?) -> Any { value ?? NSNull() }
        let (kind, value): (String, Any) =
            switch code.kind {
            case .percentage(let points): ("percentage", percent(points))
            case .fixed(let amount): ("amount", amount.plainAmount)
            case .freeShipping: ("free-shipping", NSNull())
            }
        return [
            "code": code.code, "kind": kind, "value": value, "startsAt": optional(code.startsAt.map { UTCTime($0).iso8601 }),
            "endsAt": optional(code.endsAt.map { UTCTime($0).iso8601 }), "totalUses": optional(code.totalUses),
            "usesPerCustomer": optional(code.usesPerCustomer), "minimumSubtotal": optional(code.minimumSubtotal?.plainAmount),
            "onlyFor": code.onlyFor.map(\.description).sorted(), "paused": code.isPaused, "uses": uses,
        ]
    }

    /// Basis points as a percentage: "10", "12.5", "0.01".
    static func percent(_ points: Int) -> String {
        let whole = "\(points / 100)"
        let cents = points % 100
        guard cents != 0 else { return whole }
        return whole + "." + (cents % 10 == 0 ? "\(cents / 10)" : (cents < 10 ? "0\(cents)" : "\(cents)"))
    }
}
