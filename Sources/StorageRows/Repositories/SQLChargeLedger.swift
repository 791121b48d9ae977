import Foundation
import LiveObjects
import ShopModels
import ShopPorts

/// The sandbox provider's records (table `sandbox_charge`), standing in for a real provider's: they survive a crash,
/// so a retry or a reconciliation never charges twice, and the first charge under a key wins, also when two front
/// ends record one at once.
public final class SQLChargeLedger: ChargeLedger {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func charge(forKey key: String) async throws -> LedgerCharge? {
        try await database.run(.read) { connection in try Self.charge(forKey: key, on: connection) }
    }

    public func record(_ charge: LedgerCharge) async throws -> LedgerCharge {
        try await database.run(.writeOneStatement) { connection in
            let inserted = try connection.execute(
                """
                INSERT INTO sandbox_charge (idempotency_key, token_id, amount, currency, outcome)
                VALUES (\(charge.key), \(charge.tokenID), \(charge.amount.minorUnits), \(charge.amount.currency.code), \(charge.outcome.ledgerText))
                ON CONFLICT (idempotency_key) DO NOTHING
                """)
            if inserted == 1 { return charge }
            // Another charge holds the key: the first one wins, read in a statement of its own, which sees it committed.
            return try Self.charge(forKey: charge.key, on: connection) ?? charge
        }
    }

    private static func charge(forKey key: String, on connection: any SQLConnection) throws -> LedgerCharge? {
        try connection.row("SELECT token_id, amount, currency, outcome FROM sandbox_charge WHERE idempotency_key = \(key)").map { row in
            LedgerCharge(
                key: key, tokenID: try row["token_id"],
                amount: Money(minorUnits: try row["amount"], currency: Currency(code: try row["currency"]) ?? .usd),
                outcome: ChargeOutcome(ledgerText: try row["outcome"]))
        }
    }
}

extension SQLChargeLedger: LiveObject {}
