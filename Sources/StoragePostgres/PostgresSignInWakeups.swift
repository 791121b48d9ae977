import Foundation
import PostgresNIO
import ShopPorts

/// Wakes a terminal waiting on a sign-in, on whichever host it runs: `LISTEN` on a connection of its own (the pool of a
/// shopper's process has one connection, which the waiter's own reads need), `NOTIFY` from the host that finished it.
public struct PostgresSignInWakeups: SignInWakeups {
    static let channel = "storefront_sign_in"
    private let database: PostgresDatabase

    public init(database: PostgresDatabase) { self.database = database }

    public func wait(for key: String, check: @escaping @Sendable () async -> Bool) async throws {
        try await database.listen(on: Self.channel) { notifications in
            if await check() { return }
            for try await notification in notifications where notification.payload == key {
                return
            }
            throw CancellationError()
        }
    }

    public func wake(_ key: String) async {
        _ = try? await database.writeInOneStatement { connection in
            try await connection.query("SELECT pg_notify(\(Self.channel), \(key))", logger: PostgresDatabase.quiet)
        }
    }
}

extension PostgresDatabase {
    /// Runs `body` with the notifications of `channel`, on a connection of its own opened for it and closed after.
    func listen(on channel: String, _ body: @escaping @Sendable (PostgresNotificationSequence) async throws -> Void) async throws {
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try location.connectionConfiguration()
        } catch {
            throw PostgresDatabaseError.configuration(error.description).storageError
        }
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Self.quiet)
        do {
            try await connection.listen(on: channel) { try await body($0) }
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
