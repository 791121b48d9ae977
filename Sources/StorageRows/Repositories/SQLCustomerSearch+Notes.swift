import Foundation
import ShopPorts

/// The merchants' notes on customers (v40), numbered per customer in the write that adds one, so two merchants adding
/// at once each get their own number (the primary key refuses the second writer's stale one; its transaction retries).
extension SQLCustomerSearch: CustomerNotes {
    public func notes(customer: String) async throws -> [CustomerNote] {
        try await database.run(.read) { connection in
            try connection.rows("SELECT at, author, text FROM customer_note WHERE customer = \(customer) ORDER BY sequence").map { row in
                CustomerNote(author: try row["author"], at: Date(timeIntervalSince1970: try row["at"]), text: try row["text"])
            }
        }
    }

    public func add(_ note: CustomerNote, customer: String) async throws {
        try await database.run(.write) { connection in
            try connection.execute(
                """
                INSERT INTO customer_note (customer, sequence, at, author, text)
                SELECT \(customer), coalesce(max(sequence), 0) + 1, \(note.at.timeIntervalSince1970), \(note.author), \(note.text)
                FROM customer_note WHERE customer = \(customer)
                """)
        }
    }
}
