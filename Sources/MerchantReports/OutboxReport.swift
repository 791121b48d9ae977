import ShopModels
import ShopPorts

/// How `storefront outbox` prints the shoppers' messages: pending, sent or failed, with the last error.
public enum OutboxReport {
    /// `{"version": 1, "messages": [...]}`.
    public static func json(_ entries: [OutboxEntry]) throws -> String {
        try jsonText([
            "version": 1,
            "messages": entries.map { entry -> [String: Any] in
                var fields: [String: Any] = [
                    "id": entry.id, "order": entry.orderNumber, "kind": entry.kind.rawValue, "to": entry.recipient.address,
                    "messageId": entry.messageID, "createdAt": UTCTime(entry.createdAt).iso8601, "state": state(entry.state),
                    "attempts": entry.attempts, "nextAttemptAt": UTCTime(entry.nextAttemptAt).iso8601,
                ]
                if case .sent(let at) = entry.state { fields["sentAt"] = UTCTime(at).iso8601 }
                if let error = entry.lastError { fields["lastError"] = error }
                return fields
            },
        ])
    }

    public static func table(_ entries: [OutboxEntry]) -> String {
        TextTable.render(
            header: ["Message", "Order", "Kind", "To", "State", "Tries", "Last error"],
            rows: entries.map {
                [$0.id, $0.orderNumber, $0.kind.rawValue, $0.recipient.address, state($0.state), String($0.attempts), $0.lastError ?? ""]
            },
            rightAligned: [5]
        )
    }

    static func state(_ state: OutboxState) -> String {
        switch state {
        case .pending: "pending"
        case .sent: "sent"
        case .failed: "failed"
        }
    }
}
