import Foundation
import ShopModels
import ShopPorts

/// How `storefront tokens` prints API tokens: never a secret, only its last four characters.
public enum TokenReport {
    /// `{"version": 1, "tokens": [...]}`.
    public static func json(_ records: [APITokenRecord]) throws -> String {
        try jsonText(["version": 1, "tokens": records.map(document)])
    }

    /// One token's fields, as `tokens list --json` and `tokens create --json` show them.
    public static func document(_ record: APITokenRecord) -> [String: Any] {
        var document: [String: Any] = [
            "id": record.id, "name": record.name, "owner": record.owner, "scope": record.scope.rawValue, "lastFour": record.lastFour,
            "createdAt": time(record.createdAt),
        ]
        if let used = record.lastUsedAt { document["lastUsedAt"] = time(used) }
        if let revoked = record.revokedAt { document["revokedAt"] = time(revoked) }
        return document
    }

    public static func table(_ records: [APITokenRecord]) -> String {
        guard !records.isEmpty else { return "No tokens." }
        return TextTable.render(
            header: ["Id", "Name", "Scope", "Owner", "Ends", "Made", "Last used", "Revoked"],
            rows: records.map {
                [
                    $0.id, $0.name, $0.scope.rawValue, $0.owner, "…" + $0.lastFour, time($0.createdAt), $0.lastUsedAt.map(time) ?? "never",
                    $0.revokedAt.map(time) ?? "",
                ]
            },
            rightAligned: []
        )
    }

    static func time(_ date: Date) -> String { UTCTime(date).iso8601 }
}
