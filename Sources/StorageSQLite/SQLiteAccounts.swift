import Foundation
import GRDB
import LiveObjects
import ShopModels
import ShopPorts

/// Saved cards and addresses in SQLite. A card row holds the provider's token, the network,
/// the last 4 digits and the expiry: never a full number or a security code.
public final class SQLiteWalletRepository: WalletTableRepository {
    private let database: SQLiteDatabase
    public init(database: SQLiteDatabase) { self.database = database }

    public func wallet(forCustomer customer: String) async throws -> WalletContents {
        try await database.read { db in
            var wallet = WalletContents()
            for row in try Row.fetchAll(db, sql: "SELECT * FROM wallet_card WHERE customer = ? ORDER BY added, id", arguments: [customer]) {
                guard
                    let card = PaymentMethod.stored(
                        token: row["token"], network: row["network"], lastFour: row["last_four"], expiryMonth: row["expiry_month"],
                        expiryYear: row["expiry_year"]
                    )
                else { continue }
                wallet.cards.append(card)
                if row["is_default"] as Bool { wallet.defaultCardID = row["token"] }
            }
            for row in try Row.fetchAll(db, sql: "SELECT * FROM address WHERE customer = ? ORDER BY added, id", arguments: [customer]) {
                wallet.addresses.append(
                    Contact(
                        id: row["id"], name: row["name"], email: row["email"], phone: row["phone"],
                        address: PostalAddress(
                            street: row["street"], street2: row["street2"], city: row["city"], region: row["region"], postalCode: row["postal_code"],
                            countryCode: row["country"])
                    ))
                if row["is_default"] as Bool { wallet.defaultAddressID = row["id"] }
            }
            return wallet
        }
    }

    public func addCard(_ card: PaymentMethod, forCustomer customer: String, makeDefault: Bool) async throws {
        try await database.write { db in try Self.insert(card, customer: customer, makeDefault: makeDefault, db) }
    }

    public func addAddress(_ address: Contact, forCustomer customer: String, makeDefault: Bool) async throws {
        try await database.write { db in try Self.insert(address, customer: customer, makeDefault: makeDefault, db) }
    }

    public func fillIfEmpty(_ contents: WalletContents, forCustomer customer: String) async throws -> WalletContents {
        try await database.write { db in
            let holdsAny =
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM wallet_card WHERE customer = ?) OR EXISTS (SELECT 1 FROM address WHERE customer = ?)
                        """, arguments: [customer, customer]) ?? false
            guard !holdsAny else { return }
            for card in contents.cards { try Self.insert(card, customer: customer, makeDefault: card.id == contents.defaultCardID, db) }
            for address in contents.addresses {
                try Self.insert(address, customer: customer, makeDefault: address.id == contents.defaultAddressID, db)
            }
        }
        return try await wallet(forCustomer: customer)
    }

    /// Whether a new row becomes the default (asked for, or the first), and its place in the order rows were added.
    private static func prepareAdd(_ rows: WalletRowTable, customer: String, makeDefault: Bool, _ db: Database) throws -> (
        isDefault: Bool, added: Int
    ) {
        let table = rows.rawValue
        let hasDefault =
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE customer = ? AND is_default)", arguments: [customer]) ?? false
        let isDefault = makeDefault || !hasDefault
        if isDefault { try db.execute(sql: "UPDATE \(table) SET is_default = 0 WHERE customer = ?", arguments: [customer]) }
        let added = (try Int.fetchOne(db, sql: "SELECT MAX(added) FROM \(table) WHERE customer = ?", arguments: [customer]) ?? 0) + 1
        return (isDefault, added)
    }

    private static func insert(_ card: PaymentMethod, customer: String, makeDefault: Bool, _ db: Database) throws {
        let (isDefault, added) = try prepareAdd(.cards, customer: customer, makeDefault: makeDefault, db)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO wallet_card (customer, id, token, network, last_four, expiry_month, expiry_year, is_default, added)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [customer, card.id, card.id, card.network.rawValue, card.lastFour, card.expiry.month, card.expiry.year, isDefault, added])
    }

    private static func insert(_ address: Contact, customer: String, makeDefault: Bool, _ db: Database) throws {
        let (isDefault, added) = try prepareAdd(.addresses, customer: customer, makeDefault: makeDefault, db)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO address
                    (customer, id, name, street, street2, city, region, postal_code, country, email, phone, is_default, added)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                customer, address.id, address.name, address.address.street, address.address.street2, address.address.city,
                address.address.region, address.address.postalCode, address.address.countryCode, address.email, address.phone, isDefault, added,
            ])
    }

    public func setDefault(in rows: WalletRowTable, id: String, customer: String) async throws {
        let table = rows.rawValue
        try await database.write { db in
            guard
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE customer = ? AND id = ?)", arguments: [customer, id]) == true
            else { return }
            try db.execute(sql: "UPDATE \(table) SET is_default = (id = ?) WHERE customer = ?", arguments: [id, customer])
        }
    }

    public func remove(from rows: WalletRowTable, id: String, customer: String) async throws {
        let table = rows.rawValue
        try await database.write { db in
            try db.execute(sql: "DELETE FROM \(table) WHERE customer = ? AND id = ?", arguments: [customer, id])
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE customer = ? AND is_default)", arguments: [customer]) != true {
                try db.execute(
                    sql: """
                        UPDATE \(table) SET is_default = 1
                        WHERE customer = ? AND id = (SELECT id FROM \(table) WHERE customer = ? ORDER BY added, id LIMIT 1)
                        """, arguments: [customer, customer])
            }
        }
    }
}

/// Account profiles in SQLite.
public final class SQLiteAccountProfileRepository: AccountProfileRepository {
    private let database: SQLiteDatabase
    public init(database: SQLiteDatabase) { self.database = database }

    public func profile(forCustomer customer: String) async throws -> AccountProfile? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM account WHERE customer = ?", arguments: [customer]).map {
                AccountProfile(customerID: customer, name: $0["name"], email: $0["email"])
            }
        }
    }

    public func save(_ profile: AccountProfile) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO account (customer, name, email) VALUES (?, ?, ?)
                    ON CONFLICT(customer) DO UPDATE SET name = COALESCE(excluded.name, name), email = COALESCE(excluded.email, email)
                    """, arguments: [profile.customerID, profile.name, profile.email])
        }
    }
}

/// The sandbox identity provider's records in SQLite.
public final class SQLiteIdentityDirectory: IdentityDirectory {
    private let database: SQLiteDatabase
    public init(database: SQLiteDatabase) { self.database = database }

    public func userID(email: String) async throws -> String? {
        try await database.read { db in try String.fetchOne(db, sql: "SELECT id FROM sandbox_id_user WHERE email = ?", arguments: [email]) }
    }

    public func authorize(email: String, newID: String) async throws -> String {
        try await database.write { db in
            if let id = try String.fetchOne(db, sql: "SELECT id FROM sandbox_id_user WHERE email = ?", arguments: [email]) {
                try db.execute(sql: "UPDATE sandbox_id_user SET revoked = 0 WHERE id = ?", arguments: [id])
                return id
            }
            try db.execute(sql: "INSERT INTO sandbox_id_user (id, email) VALUES (?, ?)", arguments: [newID, email])
            return newID
        }
    }

    public func status(userID: String) async throws -> CredentialState {
        try await database.read { db in
            guard let revoked = try Bool.fetchOne(db, sql: "SELECT revoked FROM sandbox_id_user WHERE id = ?", arguments: [userID]) else {
                return .notFound
            }
            return revoked ? .revoked : .authorized
        }
    }

    public func revoke(userID: String) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE sandbox_id_user SET revoked = 1 WHERE id = ?", arguments: [userID])
            try db.execute(sql: "DELETE FROM sandbox_id_refresh WHERE user_id = ?", arguments: [userID])
        }
    }

    public func storeRefreshToken(hash: String, userID: String, expiresAt: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT INTO sandbox_id_refresh (token_hash, user_id, expires_at) VALUES (?, ?, ?)",
                arguments: [hash, userID, expiresAt.timeIntervalSince1970])
        }
    }

    public func takeRefreshToken(hash: String) async throws -> (userID: String, expiresAt: Date)? {
        try await database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT user_id, expires_at FROM sandbox_id_refresh WHERE token_hash = ?", arguments: [hash])
            else { return nil }
            try db.execute(sql: "DELETE FROM sandbox_id_refresh WHERE token_hash = ?", arguments: [hash])
            return (row["user_id"], Date(timeIntervalSince1970: row["expires_at"]))
        }
    }
}

extension SQLiteWalletRepository: LiveObject {}
extension SQLiteAccountProfileRepository: LiveObject {}
extension SQLiteIdentityDirectory: LiveObject {}
