import Foundation
import ShopModels
import ShopPorts

/// How `storefront accounts` prints accounts: their ids, names, verified emails and ways in.
public enum AccountReport {
    /// `{"version": 1, "accounts": [...]}`.
    public static func json(_ accounts: [CustomerAccount]) throws -> String {
        try jsonText(["version": 1, "accounts": accounts.map(document)])
    }

    /// `{"version": 1, "account": {...}}`.
    public static func json(_ account: CustomerAccount) throws -> String {
        try jsonText(["version": 1, "account": document(account)])
    }

    public static func document(_ account: CustomerAccount) -> [String: Any] {
        [
            "id": account.id, "name": account.name.map { $0 as Any } ?? NSNull(), "email": account.email.map { $0 as Any } ?? NSNull(),
            "emailVerifiedAt": account.emailVerifiedAt.map { UTCTime($0).iso8601 as Any } ?? NSNull(),
            "waysIn": account.waysIn.map { way -> [String: Any] in
                [
                    "kind": way.wayIn.kind, "key": way.wayIn.key, "addedAt": UTCTime(way.addedAt).iso8601,
                    "lastUsedAt": way.lastUsedAt.map { UTCTime($0).iso8601 as Any } ?? NSNull(),
                ]
            },
        ]
    }

    public static func table(_ accounts: [CustomerAccount]) -> String {
        guard !accounts.isEmpty else { return "No accounts." }
        return TextTable.render(
            header: ["Account", "Name", "Email", "Ways in"],
            rows: accounts.map {
                [
                    $0.id, $0.name ?? "", ($0.email ?? "") + ($0.email != nil && $0.emailVerifiedAt == nil ? " (unverified)" : ""),
                    $0.waysIn.map { "\($0.wayIn.kind) \($0.wayIn.key)" }.joined(separator: ", "),
                ]
            },
            rightAligned: []
        )
    }

    /// One account, a line per field and a line per way in.
    public static func text(_ account: CustomerAccount) -> String {
        var lines = ["Account  \(account.id)", "Name     \(account.name ?? "")"]
        let verified = account.emailVerifiedAt.map { "verified \(UTCTime($0).iso8601)" } ?? "not verified"
        lines.append("Email    \(account.email.map { "\($0) (\(verified))" } ?? "")")
        lines.append("Ways in")
        for way in account.waysIn {
            let used = way.lastUsedAt.map { "last used \(UTCTime($0).iso8601)" } ?? "not used yet"
            lines.append("  \(way.wayIn.kind) \(way.wayIn.key)  added \(UTCTime(way.addedAt).iso8601), \(used)")
        }
        return lines.joined(separator: "\n")
    }
}
