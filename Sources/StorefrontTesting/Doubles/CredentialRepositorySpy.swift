import Foundation
import LiveObjects
import ShopModels
import ShopPorts
import StorefrontCore
import Synchronization

/// A credential repository in memory that records every write and delete, in order.
public final class CredentialRepositorySpy: CredentialRepository {
    public enum Operation: Hashable, Sendable {
        case set(key: String, value: String)
        case remove(key: String)
    }

    private let values = Mutex<[String: String]>([:])
    private let log = Mutex<[Operation]>([])
    public init() {}

    public var operations: [Operation] { log.withLock { $0 } }
    public func string(forKey key: String) throws -> String? { values.withLock { $0[key] } }
    public func set(_ value: String, forKey key: String) throws {
        values.withLock { $0[key] = value }
        log.withLock { $0.append(.set(key: key, value: value)) }
    }
    public func removeValue(forKey key: String) throws {
        _ = values.withLock { $0.removeValue(forKey: key) }
        log.withLock { $0.append(.remove(key: key)) }
    }
}

extension CredentialRepositorySpy: LiveObject {}
