import Foundation
import LiveObjects
import PostgresNIO
import ShopModels
import ShopPorts
import StorageRows

/// Carts per customer in PostgreSQL; a save replaces the customer's lines in one statement.
public final class PostgresCartRepository: CartRepository {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    public func lines(forCustomer customer: String) async throws -> [CartLine] {
        try await database.read { connection in
            var lines: [CartLine] = []
            let rows = try await connection.query(
                """
                SELECT product_id, name, unit_price, currency, quantity, variant_sku, variant_title, grams FROM cart_line
                WHERE customer = \(customer) ORDER BY position
                """, logger: PostgresDatabase.quiet)
            for try await (productID, name, price, code, quantity, sku, title, grams) in rows.decode(
                (String, String, Int64, String, Int, String?, String?, Int).self)
            {
                // A row no shop could have written (edited by hand, damaged) is left out rather than trapping in CartLine.
                guard let currency = Currency(code: code), CartLine.quantityRange.contains(quantity), price >= 0 else { continue }
                lines.append(
                    CartLine(
                        productID: ProductID(productID), name: name, unitPrice: Money(minorUnits: price, currency: currency), quantity: quantity,
                        variant: ChosenVariant(storedSKU: sku, title: title), unitGrams: grams))
            }
            return lines
        }
    }

    public func save(_ lines: [CartLine], forCustomer customer: String) async throws {
        // One statement: the lines are written over the old ones by position and the old ones past them deleted;
        // the two touch different rows, and the statement commits as one.
        try await database.writeInOneStatement { connection in
            _ = try await connection.query(
                """
                WITH written AS (
                    INSERT INTO cart_line (customer, position, product_id, name, unit_price, currency, quantity, variant_sku, variant_title, grams)
                    SELECT \(customer), position, product_id, name, unit_price, currency, quantity, nullif(variant_sku, ''), nullif(variant_title, ''),
                           grams
                    FROM unnest(\(Array(lines.indices))::int8[], \(lines.map(\.productID.rawValue))::text[], \(lines.map(\.name))::text[],
                                \(lines.map(\.unitPrice.minorUnits))::int8[], \(lines.map(\.unitPrice.currency.code))::text[], \(lines.map(\.quantity))::int8[],
                                \(lines.map { $0.variant?.sku.rawValue ?? "" })::text[], \(lines.map { $0.variant?.title ?? "" })::text[],
                                \(lines.map(\.unitGrams))::int8[])
                         AS t (position, product_id, name, unit_price, currency, quantity, variant_sku, variant_title, grams)
                    ON CONFLICT (customer, position) DO UPDATE SET product_id = EXCLUDED.product_id, name = EXCLUDED.name,
                        unit_price = EXCLUDED.unit_price, currency = EXCLUDED.currency, quantity = EXCLUDED.quantity,
                        variant_sku = EXCLUDED.variant_sku, variant_title = EXCLUDED.variant_title, grams = EXCLUDED.grams
                )
                DELETE FROM cart_line WHERE customer = \(customer) AND position >= \(lines.count)
                """, logger: PostgresDatabase.quiet)
        }
    }
}

/// The sandbox provider's records in PostgreSQL (table `sandbox_charge`), first-wins per key even
/// when two front ends record a charge under one key at once.
public final class PostgresChargeLedger: ChargeLedger {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    public func charge(forKey key: String) async throws -> LedgerCharge? {
        try await database.read { connection in try await Self.charge(forKey: key, on: connection) }
    }

    public func record(_ charge: LedgerCharge) async throws -> LedgerCharge {
        let outcome = charge.outcome.ledgerText
        return try await database.writeInOneStatement { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO sandbox_charge (idempotency_key, token_id, amount, currency, outcome)
                VALUES (\(charge.key), \(charge.tokenID), \(charge.amount.minorUnits), \(charge.amount.currency.code), \(outcome))
                ON CONFLICT (idempotency_key) DO NOTHING
                RETURNING idempotency_key
                """, logger: PostgresDatabase.quiet
            ).collect()
            if !inserted.isEmpty { return charge }
            // Another charge holds the key: the first one wins, read in a statement of its own, which sees it committed.
            return try await Self.charge(forKey: charge.key, on: connection) ?? charge
        }
    }

    private static func charge(forKey key: String, on connection: PostgresConnection) async throws -> LedgerCharge? {
        let rows = try await connection.query(
            "SELECT token_id, amount, currency, outcome FROM sandbox_charge WHERE idempotency_key = \(key)", logger: PostgresDatabase.quiet)
        for try await (tokenID, amount, code, outcome) in rows.decode((String, Int64, String, String).self) {
            return LedgerCharge(
                key: key, tokenID: tokenID, amount: Money(minorUnits: amount, currency: Currency(code: code) ?? .usd),
                outcome: ChargeOutcome(ledgerText: outcome))
        }
        return nil
    }
}

/// A real provider's ids in PostgreSQL: the payment's on its order, the customer's in
/// `provider_customer`. Each filing is first-wins, also between front ends.
public final class PostgresProviderReferences: ProviderReferenceRepository {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    public func customerReference(for customer: String, account: String) async throws -> String? {
        try await database.read { connection in
            try await connection.query(
                "SELECT reference FROM provider_customer WHERE customer = \(customer) AND account = \(account)", logger: PostgresDatabase.quiet
            )
            .collect().first?.decode(String.self)
        }
    }

    public func fileCustomerReference(_ reference: String, for customer: String, account: String) async throws -> String {
        try await database.write { connection in
            try await connection.query(
                """
                INSERT INTO provider_customer (customer, account, reference) VALUES (\(customer), \(account), \(reference))
                ON CONFLICT (customer, account) DO NOTHING
                """, logger: PostgresDatabase.quiet)
            return try await connection.query(
                "SELECT reference FROM provider_customer WHERE customer = \(customer) AND account = \(account)", logger: PostgresDatabase.quiet
            )
            .collect().first?.decode(String.self) ?? reference
        }
    }

    public func installID() async throws -> String {
        try await database.read { connection in
            guard
                let id = try await connection.query("SELECT id FROM shop_install", logger: PostgresDatabase.quiet).collect().first?.decode(
                    String.self)
            else {
                throw PostgresDatabaseError.configuration("the database has no shop_install row (written when it was made); restore it from a backup")
            }
            return id
        }
    }

    public func paymentReference(forOrderKey orderKey: String) async throws -> String? {
        try await database.read { connection in
            try await connection.query("SELECT payment_reference FROM orders WHERE idempotency_key = \(orderKey)", logger: PostgresDatabase.quiet)
                .collect().first?.decode(String?.self) ?? nil
        }
    }

    public func filePaymentReference(_ reference: String, forOrderKey orderKey: String) async throws -> String {
        try await database.write { connection in
            // COALESCE keeps a reference already filed; the row lock makes the second of two filings see the first.
            let rows = try await connection.query(
                """
                UPDATE orders SET payment_reference = COALESCE(payment_reference, \(reference))
                WHERE idempotency_key = \(orderKey) RETURNING payment_reference
                """, logger: PostgresDatabase.quiet
            ).collect()
            guard let filed = try rows.first?.decode(String.self) else { throw UnknownOrderKey(orderKey: orderKey) }
            return filed
        }
    }
}

extension PostgresCartRepository: LiveObject {}
extension PostgresChargeLedger: LiveObject {}
extension PostgresProviderReferences: LiveObject {}
