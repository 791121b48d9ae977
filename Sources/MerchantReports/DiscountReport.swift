import Foundation
import ShopModels

/// How `storefront discounts` prints codes: one line each, or a JSON document.
public enum DiscountReport {
    /// "10% off; 3 uses, 1 a customer; from … until …; at least $20.00; only mug, tee-m; paused".
    public static func terms(_ code: DiscountCode) -> String { code.summary }

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
            case .percentage(let points): ("percentage", DiscountCode.percent(points))
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
}
