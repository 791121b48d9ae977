import Foundation
import ShopModels
import ShopPorts

/// How `storefront subscriptions` prints subscriptions and their renewals to come: tables, or JSON documents.
public enum SubscriptionReport {
    /// One row per subscription: id, status, customer, what, every, next, card.
    public static func table(_ subscriptions: [Subscription]) -> String {
        guard !subscriptions.isEmpty else { return "No subscriptions." }
        let rows = subscriptions.map { s in
            [
                s.id, s.status.rawValue, s.subscriber.map { $0.name.isEmpty ? $0.address : "\($0.name) · \($0.address)" } ?? s.customerID,
                "\(s.quantity) × \(s.variantSKU?.rawValue ?? s.productID.rawValue)",
                "\(s.intervalWeeks) wk", s.status == .canceled ? "—" : UTCTime(s.dueAt).minutes, s.cardDescription,
            ]
        }
        return TextTable.render(header: ["Subscription", "Status", "Customer", "Delivers", "Every", "Next", "Card"], rows: rows, rightAligned: [])
    }

    /// `{"version": 1, "subscriptions": [...]}`.
    public static func json(_ subscriptions: [Subscription]) throws -> String {
        try jsonText(["version": 1, "subscriptions": subscriptions.map { object($0) }])
    }

    /// One subscription's document, with its history when given.
    public static func object(_ s: Subscription, history: [SubscriptionEvent]? = nil) -> [String: Any] {
        var object: [String: Any] = [
            "id": s.id, "status": s.status.rawValue, "customer": s.customerID, "productId": s.productID.rawValue,
            "sku": s.variantSKU.map { $0.rawValue as Any } ?? NSNull(), "quantity": s.quantity, "intervalWeeks": s.intervalWeeks,
            "period": s.period, "renewsAt": UTCTime(s.renewsAt).iso8601, "dueAt": UTCTime(s.dueAt).iso8601, "failedAttempts": s.failedAttempts,
            "skipsNext": s.skipsNext, "endsAtPeriodEnd": s.endsAtPeriodEnd, "card": s.cardDescription, "shipTo": s.shipTo.shipToLine,
            "reminders": s.remindersStopped == nil, "remindedPeriod": s.remindedPeriod.map { $0 as Any } ?? NSNull(),
        ]
        if let history {
            object["history"] = history.map { ["at": UTCTime($0.at).iso8601, "actor": $0.actor, "kind": $0.kind, "detail": $0.detail] }
        }
        return object
    }

    /// The renewals to come, one a row, and their goods' total per currency at the end.
    public static func upcomingTable(_ renewals: [UpcomingRenewal]) -> String {
        guard !renewals.isEmpty else { return "No renewals to come in that window." }
        let rows = renewals.map {
            [UTCTime($0.at).minutes, $0.subscription.id, $0.subscription.customerID, $0.goods?.formatted ?? "no longer sold"]
        }
        let totals = UpcomingRenewal.goodsTotals(renewals).map { "\($0.formatted)" }.joined(separator: ", ")
        return TextTable.render(header: ["When", "Subscription", "Customer", "Goods"], rows: rows, rightAligned: [3])
            + "\n\(renewals.count) renewal\(renewals.count == 1 ? "" : "s"), goods \(totals) before tax and shipping"
    }

    /// `{"version": 1, "renewals": [...], "goods": [{"currency", "amount"}]}`.
    public static func upcomingJSON(_ renewals: [UpcomingRenewal]) throws -> String {
        try jsonText([
            "version": 1,
            "renewals": renewals.map {
                [
                    "at": UTCTime($0.at).iso8601, "subscription": $0.subscription.id, "customer": $0.subscription.customerID,
                    "goods": $0.goods.map { $0.minorUnits as Any } ?? NSNull(), "currency": $0.goods?.currency.code ?? NSNull(),
                ] as [String: Any]
            },
            "goods": UpcomingRenewal.goodsTotals(renewals).map { ["currency": $0.currency.code, "amount": $0.minorUnits] as [String: Any] },
        ])
    }
}
