import Foundation
import ShopModels
import ShopPorts

/// How `storefront customers` prints customers: a search's matches by name and email, and one customer's page.
public enum CustomerReport {
    public static func table(_ matches: [CustomerMatch]) -> String {
        guard !matches.isEmpty else { return "No customer matches." }
        return TextTable.render(
            header: ["Customer", "Name", "Email", "Orders", "Found by"],
            rows: matches.map { [$0.customerID, $0.name ?? "", $0.email ?? "", String($0.orders), $0.matchedBy.rawValue] },
            rightAligned: [3])
    }

    /// `{"version": 1, "customers": [...]}`.
    public static func json(_ matches: [CustomerMatch]) throws -> String {
        try jsonText([
            "version": 1,
            "customers": matches.map {
                [
                    "id": $0.customerID, "name": $0.name.map { $0 as Any } ?? NSNull(), "email": $0.email.map { $0 as Any } ?? NSNull(),
                    "orders": $0.orders, "matchedBy": $0.matchedBy.rawValue,
                ] as [String: Any]
            },
        ])
    }

    /// What a customer's page shows: who they are and how they get in, where they ship, what they spent, their
    /// latest orders and their subscriptions.
    public typealias Page = CustomerPage

    public static func text(_ page: Page) -> String {
        var lines = ["Customer  \(page.customerID)"]
        if let account = page.account {
            lines.append("Name      \(account.name ?? "")")
            lines.append("Email     \(account.email ?? "")\(account.email != nil && account.emailVerifiedAt == nil ? " (unverified)" : "")")
            lines.append("Ways in   " + account.waysIn.map { "\($0.wayIn.kind) \($0.wayIn.key)" }.joined(separator: ", "))
        }
        lines.append("")
        lines.append(page.spend.isEmpty ? "Spend     nothing yet" : "Spend")
        for spend in page.spend {
            lines.append(
                "  \(spend.charged.currency.code)  \(spend.orders) order\(spend.orders == 1 ? "" : "s"), charged \(spend.charged.formatted), "
                    + "refunded \(spend.refunded.formatted), net \(spend.net.formatted)")
        }
        lines.append("")
        lines.append("Addresses (\(page.addresses.count))")
        lines += page.addresses.map { "  \($0.shipToLine)" + ($0.email.isEmpty ? "" : "  <\($0.email)>") }
        lines.append("")
        lines.append("Orders (\(page.orderCount)\(page.orderCount > page.orders.count ? ", the latest \(page.orders.count)" : ""))")
        if !page.orders.isEmpty { lines.append(OrderReport.table(page.orders)) }
        lines.append("")
        lines.append("Subscriptions (\(page.subscriptions.count))")
        lines += page.subscriptions.map {
            "  \($0.id)  \($0.variantSKU?.rawValue ?? $0.productID.rawValue) × \($0.quantity), every \(RenewalSchedule.every($0.intervalWeeks)), "
                + "\($0.status.rawValue), next \(UTCTime($0.renewsAt).calendarDate)"
        }
        lines.append("")
        lines.append("Notes (\(page.notes.count))")
        lines += page.notes.map { "  \(UTCTime($0.at).minutes)  \($0.author): \($0.text)" }
        return lines.joined(separator: "\n")
    }

    /// `{"version": 1, "customer": {...}}`, its orders as `orders --json` writes them.
    public static func json(_ page: Page) throws -> String {
        var customer: [String: Any] = [
            "id": page.customerID,
            "spend": page.spend.map {
                ["currency": $0.charged.currency.code, "orders": $0.orders, "charged": $0.charged.minorUnits, "refunded": $0.refunded.minorUnits]
            },
            "addresses": page.addresses.map { ["name": $0.name, "email": $0.email, "shipTo": $0.shipToLine] },
            "orderCount": page.orderCount, "orders": page.orders.map(OrderReport.object),
            "subscriptions": page.subscriptions.map {
                [
                    "id": $0.id, "product": $0.productID.rawValue, "variant": $0.variantSKU.map { $0.rawValue as Any } ?? NSNull(),
                    "quantity": $0.quantity, "everyWeeks": $0.intervalWeeks, "status": $0.status.rawValue,
                    "renewsAt": UTCTime($0.renewsAt).iso8601,
                ] as [String: Any]
            },
        ]
        customer["notes"] = page.notes.map { ["at": UTCTime($0.at).iso8601, "author": $0.author, "text": $0.text] }
        if let account = page.account { customer["account"] = AccountReport.document(account) }
        return try jsonText(["version": 1, "customer": customer])
    }
}
