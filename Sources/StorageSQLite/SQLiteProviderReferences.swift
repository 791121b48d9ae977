import GRDB
import LiveObjects
import ShopPorts

/// A real provider's ids in SQLite: the payment's on its order (`orders.payment_reference`), the
/// customer's in `provider_customer`. Each filing is one IMMEDIATE transaction, first-wins.
public final class SQLiteProviderReferences: ProviderReferenceRepository {
    private let database: SQLiteDatabase

    public init(database: SQLiteDatabase) { self.database = database }

    public func customerReference(for customer: String, account: String) async throws -> String? {
        try await database.read { db in
            try String.fetchOne(
                db, sql: "SELECT reference FROM provider_customer WHERE customer = ? AND account = ?", arguments: [customer, account])
        }
    }

    public func fileCustomerReference(_ reference: String, for customer: String, account: String) async throws -> String {
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO provider_customer (customer, account, reference) VALUES (?, ?, ?)",
                arguments: [customer, account, reference])
            return try String.fetchOne(
                db, sql: "SELECT reference FROM provider_customer WHERE customer = ? AND account = ?", arguments: [customer, account]) ?? reference
        }
    }

    public func installID() async throws -> String {
        try await database.read { db in
            guard let id = try String.fetchOne(db, sql: "SELECT id FROM shop_install") else { throw MissingInstallID() }
            return id
        }
    }

    public func paymentReference(forOrderKey orderKey: String) async throws -> String? {
        try await database.read { db in
            try String.fetchOne(db, sql: "SELECT payment_reference FROM orders WHERE idempotency_key = ?", arguments: [orderKey])
        }
    }

    public func filePaymentReference(_ reference: String, forOrderKey orderKey: String) async throws -> String {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE orders SET payment_reference = ? WHERE idempotency_key = ? AND payment_reference IS NULL",
                arguments: [reference, orderKey])
            guard let row = try Row.fetchOne(db, sql: "SELECT payment_reference FROM orders WHERE idempotency_key = ?", arguments: [orderKey]) else {
                throw UnknownOrderKey(orderKey: orderKey)
            }
            return row["payment_reference"] ?? reference
        }
    }
}

/// The database has no `shop_install` row, which its migration writes: it was changed by hand.
struct MissingInstallID: Error, CustomStringConvertible {
    var description: String { "the database has no shop_install row (written when it was made); restore it from a backup" }
}

extension SQLiteProviderReferences: LiveObject {}
