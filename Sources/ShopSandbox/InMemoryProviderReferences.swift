import Foundation
import LiveObjects
import ShopPorts
import Synchronization

/// A provider's ids for customers and payments, kept in memory: for tests and throwaway shops.
public final class InMemoryProviderReferences: ProviderReferenceRepository {
    private let customers = Mutex<[String: String]>([:])
    private let payments = Mutex<[String: String]>([:])

    private let install: String

    /// `installID` is this shop's id; a fresh one by default, as a new database makes.
    public init(installID: String = UUID().uuidString.lowercased()) {
        self.install = installID
    }

    public func installID() -> String { install }

    public func customerReference(for customer: String, account: String) throws -> String? {
        customers.withLock { $0["\(account)\u{0}\(customer)"] }
    }

    public func fileCustomerReference(_ reference: String, for customer: String, account: String) throws -> String {
        customers.withLock { Self.fileFirst(reference, under: "\(account)\u{0}\(customer)", in: &$0) }
    }

    public func paymentReference(forOrderKey orderKey: String) throws -> String? {
        payments.withLock { $0[orderKey] }
    }

    public func filePaymentReference(_ reference: String, forOrderKey orderKey: String) throws -> String {
        payments.withLock { Self.fileFirst(reference, under: orderKey, in: &$0) }
    }

    private static func fileFirst(_ value: String, under key: String, in table: inout [String: String]) -> String {
        if let filed = table[key] { return filed }
        table[key] = value
        return value
    }
}

extension InMemoryProviderReferences: LiveObject {}
