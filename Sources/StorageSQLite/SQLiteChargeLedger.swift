import Foundation
import GRDB
import LiveObjects
import ShopModels
import ShopPorts

/// The sandbox provider's records in SQLite (table `sandbox_charge`), standing in for a real
/// provider's: they survive a crash, so a retry or a reconciliation never charges twice.
public final class SQLiteChargeLedger: ChargeLedger {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func charge(forKey key: String) async throws -> LedgerCharge? {
        try await database.pool.read { db in try Self.charge(forKey: key, in: db) }
    }

    public func record(_ charge: LedgerCharge) async throws -> LedgerCharge {
        try await database.pool.write { db in
            if let existing = try Self.charge(forKey: charge.key, in: db) { return existing }
            let outcome = charge.outcome.ledgerText
            try db.execute(
                sql: "INSERT INTO sandbox_charge (idempotency_key, token_id, amount, currency, outcome) VALUES (?, ?, ?, ?, ?)",
                arguments: [charge.key, charge.tokenID, charge.amount.minorUnits, charge.amount.currency.code, outcome])
            return charge
        }
    }

    private static func charge(forKey key: String, in db: Database) throws -> LedgerCharge? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM sandbox_charge WHERE idempotency_key = ?", arguments: [key]) else { return nil }
        let outcome = ChargeOutcome(ledgerText: row["outcome"])
        let currency = Currency(code: row["currency"]) ?? .usd
        return LedgerCharge(key: key, tokenID: row["token_id"], amount: Money(minorUnits: row["amount"], currency: currency), outcome: outcome)
    }
}

extension SQLiteChargeLedger: LiveObject {}
