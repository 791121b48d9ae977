import ShopModels
import ShopPorts

/// How `storefront webhooks waiting` prints the provider's events kept but not yet applied.
public enum ProviderEventReport {
    /// `{"version": 1, "events": [...]}`.
    public static func json(_ events: [WaitingProviderEvent]) throws -> String {
        try jsonText([
            "version": 1,
            "events": events.map { event -> [String: Any] in
                var fields: [String: Any] = [
                    "provider": event.provider, "id": event.header.id, "type": event.header.type, "receivedAt": UTCTime(event.receivedAt).iso8601,
                    "attempts": event.attempts, "state": state(event),
                ]
                if let error = event.lastError { fields["lastError"] = error }
                return fields
            },
        ])
    }

    public static func table(_ events: [WaitingProviderEvent]) -> String {
        TextTable.render(
            header: ["Event", "Type", "Received", "Tries", "State", "Last error"],
            rows: events.map { [$0.header.id, $0.header.type, UTCTime($0.receivedAt).iso8601, String($0.attempts), state($0), $0.lastError ?? ""] },
            rightAligned: [3]
        )
    }

    static func state(_ event: WaitingProviderEvent) -> String { event.givenUp ? "given up" : "waiting" }
}
