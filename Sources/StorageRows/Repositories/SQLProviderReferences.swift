import Foundation
import LiveObjects
import ShopPorts

/// A real provider's ids: the payment's on its order (`orders.payment_reference`), the customer's in
/// `provider_customer`. Each filing is first-wins, also between front ends.
public final class SQLProviderReferences: ProviderReferenceRepository {
    private let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func customerReference(for customer: String, account: String) async throws -> String? {
        try await database.run(.read) { connection in
            try connection.value("SELECT reference FROM provider_customer WHERE customer = \(customer) AND account = \(account)")
        }
    }

    public func fileCustomerReference(_ reference: String, for customer: String, account: String) async throws -> String {
        try await database.run(.write) { connection in
            try connection.execute(
                """
                INSERT INTO provider_customer (customer, account, reference) VALUES (\(customer), \(account), \(reference))
                ON CONFLICT (customer, account) DO NOTHING
                """)
            return try connection.value("SELECT reference FROM provider_customer WHERE customer = \(customer) AND account = \(account)")
                ?? reference
        }
    }

    public func installID() async throws -> String {
        try await database.run(.read) { connection in
            guard let id: String = try connection.value("SELECT id FROM shop_install") else { throw MissingInstallID() }
            return id
        }
    }

    public func paymentReference(forOrderKey orderKey: String) async throws -> String? {
        try await database.run(.read) { connection in
            try connection.value("SELECT payment_reference FROM orders WHERE idempotency_key = \(orderKey)", as: String?.self) ?? nil
        }
    }

    public func filePaymentReference(_ reference: String, forOrderKey orderKey: String) async throws -> String {
        try await database.run(.write) { connection in
            // COALESCE keeps a reference already filed; the row lock makes the second of two filings see the first.
            guard
                let filed: String = try connection.value(
                    """
                    UPDATE orders SET payment_reference = COALESCE(payment_reference, \(reference))
                    WHERE idempotency_key = \(orderKey) RETURNING payment_reference
                    """)
            else { throw UnknownOrderKey(orderKey: orderKey) }
            return filed
        }
    }
}

/// The database has no `shop_install` row, which its migration writes: it was changed by hand.
struct MissingInstallID: Error, CustomStringConvertible {
    var description: String { "the database has no shop_install row (written when it was made); restore it from a backup" }
}

extension SQLProviderReferences: LiveObject {}
