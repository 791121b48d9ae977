import Foundation
import LiveObjects
import ShopPorts

/// The sandbox identity provider's records, each change one statement or one transaction, so two hosts agree.
public final class SQLIdentityDirectory: IdentityDirectory {
    private let database: any SQLDatabase
    public init(database: any SQLDatabase) { self.database = database }

    public func userID(email: String) async throws -> String? {
        try await database.run(.read) { connection in try connection.value("SELECT id FROM sandbox_id_user WHERE email = \(email)") }
    }

    public func authorize(email: String, newID: String) async throws -> String {
        try await database.run(.writeOneStatement) { connection in
            // One statement, so two hosts signing the same email in at once agree on its id.
            try connection.value(
                """
                INSERT INTO sandbox_id_user (id, email) VALUES (\(newID), \(email))
                ON CONFLICT (email) DO UPDATE SET revoked = \(false)
                RETURNING id
                """) ?? newID
        }
    }

    public func status(userID: String) async throws -> CredentialState {
        try await database.run(.read) { connection in
            guard let revoked: Bool = try connection.value("SELECT revoked FROM sandbox_id_user WHERE id = \(userID)") else { return .notFound }
            return revoked ? .revoked : .authorized
        }
    }

    public func revoke(userID: String) async throws {
        try await database.run(.write) { connection in
            try connection.execute("UPDATE sandbox_id_user SET revoked = \(true) WHERE id = \(userID)")
            try connection.execute("DELETE FROM sandbox_id_refresh WHERE user_id = \(userID)")
        }
    }

    public func storeRefreshToken(hash: String, userID: String, expiresAt: Date) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute("INSERT INTO sandbox_id_refresh (token_hash, user_id, expires_at) VALUES (\(hash), \(userID), \(expiresAt))")
        }
    }

    /// DELETE … RETURNING: of two hosts redeeming one token at once, exactly one gets it.
    public func takeRefreshToken(hash: String) async throws -> (userID: String, expiresAt: Date)? {
        try await database.run(.writeOneStatement) { connection in
            try connection.row("DELETE FROM sandbox_id_refresh WHERE token_hash = \(hash) RETURNING user_id, expires_at").map {
                (userID: try $0["user_id"], expiresAt: try $0["expires_at"])
            }
        }
    }
}

extension SQLIdentityDirectory: LiveObject {}
