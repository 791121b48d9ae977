import Foundation
import ShopPorts
import Synchronization

/// API tokens kept in memory: the double for the database token repositories.
public final class InMemoryAPITokenRepository: APITokenRepository {
    private let records = Mutex<[APITokenRecord]>([])

    public init(_ initial: [APITokenRecord] = []) {
        records.withLock { $0 = initial }
    }

    public func add(_ token: APITokenRecord) throws {
        records.withLock { $0.append(token) }
    }

    public func token(secretHash: String) throws -> APITokenRecord? {
        records.withLock { all in all.first { $0.secretHash == secretHash } }
    }

    public func tokens(owner: String?) throws -> [APITokenRecord] {
        records.withLock { all in all.filter { owner == nil || $0.owner == owner } }
    }

    public func revoke(id: String, owner: String?, at time: Date) throws -> APITokenRecord? {
        records.withLock { all in
            guard let index = all.firstIndex(where: { $0.id == id && (owner == nil || $0.owner == owner) }) else { return nil }
            if all[index].revokedAt == nil { all[index].revokedAt = time }
            return all[index]
        }
    }

    public func markUsed(id: String, at time: Date) throws {
        records.withLock { all in
            for index in all.indices where all[index].id == id { all[index].lastUsedAt = time }
        }
    }
}

/// Idempotency keys kept in memory: the double for the database repositories.
public final class InMemoryIdempotencyRepository: IdempotencyRepository {
    private let requests = Mutex<[String: FiledIdempotentRequest]>([:])
    public init() {}

    public func claim(owner: String, key: String, fingerprint: String, at time: Date, abandonedBefore: Date) throws -> IdempotentClaim {
        requests.withLock { all in
            let id = "\(owner)\n\(key)"
            let claim = IdempotentClaim.decide(all[id], fingerprint: fingerprint, abandonedBefore: abandonedBefore)
            if claim == .granted { all[id] = FiledIdempotentRequest(fingerprint: fingerprint, startedAt: time, answer: nil) }
            return claim
        }
    }

    public func answer(_ answer: IdempotentAnswer, owner: String, key: String) throws {
        requests.withLock { all in all["\(owner)\n\(key)"]?.answer = answer }
    }

    public func release(owner: String, key: String) throws {
        requests.withLock { all in
            if all["\(owner)\n\(key)"]?.answer == nil { all["\(owner)\n\(key)"] = nil }
        }
    }
}
