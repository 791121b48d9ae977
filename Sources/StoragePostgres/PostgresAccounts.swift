import Foundation
import LiveObjects
import PostgresNIO
import ShopModels
import ShopPorts

/// Saved cards and addresses in PostgreSQL. A card row holds the provider's token, the network,
/// the last 4 digits and the expiry: never a full number or a security code.
public final class PostgresWalletRepository: WalletTableRepository {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    public func wallet(forCustomer customer: String) async throws -> WalletContents {
        try await database.read { connection in
            var wallet = WalletContents()
            let cards = try await connection.query(
                """
                SELECT token, network, last_four, expiry_month, expiry_year, is_default FROM wallet_card
                WHERE customer = \(customer) ORDER BY added, id
                """, logger: PostgresDatabase.quiet)
            for try await (token, network, lastFour, month, year, isDefault) in cards.decode((String, String, String, Int, Int, Bool).self) {
                guard let card = PaymentMethod.stored(token: token, network: network, lastFour: lastFour, expiryMonth: month, expiryYear: year) else {
                    continue
                }
                wallet.cards.append(card)
                if isDefault { wallet.defaultCardID = token }
            }
            let addresses = try await connection.query(
                """
                SELECT id, name, email, phone, street, street2, city, region, postal_code, country, is_default FROM address
                WHERE customer = \(customer) ORDER BY added, id
                """, logger: PostgresDatabase.quiet)
            for try await (id, name, email, phone, street, street2, city, region, postalCode, country, isDefault) in addresses.decode(
                (String, String, String, String, String, String, String, String, String, String, Bool).self)
            {
                wallet.addresses.append(
                    Contact(
                        id: id, name: name, email: email, phone: phone,
                        address: PostalAddress(
                            street: street, street2: street2, city: city, region: region, postalCode: postalCode, countryCode: country)
                    ))
                if isDefault { wallet.defaultAddressID = id }
            }
            return wallet
        }
    }

    public func addCard(_ card: PaymentMethod, forCustomer customer: String, makeDefault: Bool) async throws {
        try await database.write { connection in try await Self.insert(card, customer: customer, makeDefault: makeDefault, on: connection) }
    }

    public func addAddress(_ address: Contact, forCustomer customer: String, makeDefault: Bool) async throws {
        try await database.write { connection in try await Self.insert(address, customer: customer, makeDefault: makeDefault, on: connection) }
    }

    public func fillIfEmpty(_ contents: WalletContents, forCustomer customer: String) async throws -> WalletContents {
        try await database.write { connection in
            let held = try await connection.query(
                """
                SELECT 1 FROM wallet_card WHERE customer = \(customer) UNION ALL SELECT 1 FROM address WHERE customer = \(customer) LIMIT 1
                """, logger: PostgresDatabase.quiet
            ).collect()
            guard held.isEmpty else { return }
            // Every insert is an upsert on fixed ids, so two hosts filling one wallet at once leave one copy of each.
            for card in contents.cards {
                try await Self.insert(card, customer: customer, makeDefault: card.id == contents.defaultCardID, on: connection)
            }
            for address in contents.addresses {
                try await Self.insert(address, customer: customer, makeDefault: address.id == contents.defaultAddressID, on: connection)
            }
        }
        return try await wallet(forCustomer: customer)
    }

    private static func insert(_ card: PaymentMethod, customer: String, makeDefault: Bool, on connection: PostgresConnection) async throws {
        let (isDefault, added) = try await prepareAdd(
            table: WalletRowTable.cards.rawValue, customer: customer, makeDefault: makeDefault, on: connection)
        try await connection.query(
            """
            INSERT INTO wallet_card (customer, id, token, network, last_four, expiry_month, expiry_year, is_default, added)
            VALUES (\(customer), \(card.id), \(card.id), \(card.network.rawValue), \(card.lastFour), \(card.expiry.month), \(card.expiry.year), \(isDefault), \(added))
            ON CONFLICT (customer, id) DO UPDATE SET token = excluded.token, network = excluded.network, last_four = excluded.last_four,
                expiry_month = excluded.expiry_month, expiry_year = excluded.expiry_year, is_default = excluded.is_default, added = excluded.added
            """, logger: PostgresDatabase.quiet)
    }

    private static func insert(_ address: Contact, customer: String, makeDefault: Bool, on connection: PostgresConnection) async throws {
        let (isDefault, added) = try await prepareAdd(
            table: WalletRowTable.addresses.rawValue, customer: customer, makeDefault: makeDefault, on: connection)
        let postal = address.address
        try await connection.query(
            """
            INSERT INTO address (customer, id, name, street, street2, city, region, postal_code, country, email, phone, is_default, added)
            VALUES (\(customer), \(address.id), \(address.name), \(postal.street), \(postal.street2), \(postal.city), \(postal.region),
                    \(postal.postalCode), \(postal.countryCode), \(address.email), \(address.phone), \(isDefault), \(added))
            ON CONFLICT (customer, id) DO UPDATE SET name = excluded.name, street = excluded.street, street2 = excluded.street2,
                city = excluded.city, region = excluded.region,
                postal_code = excluded.postal_code, country = excluded.country, email = excluded.email, phone = excluded.phone,
                is_default = excluded.is_default, added = excluded.added
            """, logger: PostgresDatabase.quiet)
    }

    /// Whether a new row becomes the default (asked for, or the first), and its place in the order
    /// rows were added. The customer's rows are locked first, so two hosts adding at once number in turn.
    private static func prepareAdd(table: String, customer: String, makeDefault: Bool, on connection: PostgresConnection) async throws -> (
        isDefault: Bool, added: Int
    ) {
        let rows = try await connection.query(
            "SELECT is_default, added FROM \(unescaped: table) WHERE customer = \(customer) FOR UPDATE", logger: PostgresDatabase.quiet)
        var hasDefault = false
        var last = 0
        for try await (isDefault, added) in rows.decode((Bool, Int).self) {
            hasDefault = hasDefault || isDefault
            last = max(last, added)
        }
        let isDefault = makeDefault || !hasDefault
        if isDefault {
            try await connection.query(
                "UPDATE \(unescaped: table) SET is_default = false WHERE customer = \(customer)", logger: PostgresDatabase.quiet)
        }
        return (isDefault, last + 1)
    }

    public func setDefault(in rows: WalletRowTable, id: String, customer: String) async throws {
        let table = rows.rawValue
        try await database.write { connection in
            guard
                try await connection.query(
                    "SELECT 1 FROM \(unescaped: table) WHERE customer = \(customer) AND id = \(id)", logger: PostgresDatabase.quiet
                ).collect().isEmpty == false
            else { return }
            try await connection.query(
                "UPDATE \(unescaped: table) SET is_default = (id = \(id)) WHERE customer = \(customer)", logger: PostgresDatabase.quiet)
        }
    }

    public func remove(from rows: WalletRowTable, id: String, customer: String) async throws {
        let table = rows.rawValue
        try await database.write { connection in
            try await connection.query("DELETE FROM \(unescaped: table) WHERE customer = \(customer) AND id = \(id)", logger: PostgresDatabase.quiet)
            let hasDefault =
                try await connection.query(
                    "SELECT 1 FROM \(unescaped: table) WHERE customer = \(customer) AND is_default", logger: PostgresDatabase.quiet
                ).collect().isEmpty == false
            if !hasDefault {
                try await connection.query(
                    """
                    UPDATE \(unescaped: table) SET is_default = true
                    WHERE customer = \(customer) AND id = (SELECT id FROM \(unescaped: table) WHERE customer = \(customer) ORDER BY added, id LIMIT 1)
                    """, logger: PostgresDatabase.quiet)
            }
        }
    }
}

/// Account profiles in PostgreSQL.
public final class PostgresAccountProfileRepository: AccountProfileRepository {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    public func profile(forCustomer customer: String) async throws -> AccountProfile? {
        try await database.read { connection in
            for try await (name, email) in try await connection.query(
                "SELECT name, email FROM account WHERE customer = \(customer)", logger: PostgresDatabase.quiet
            ).decode((String?, String?).self) {
                return AccountProfile(customerID: customer, name: name, email: email)
            }
            return nil
        }
    }

    public func save(_ profile: AccountProfile) async throws {
        try await database.write { connection in
            _ = try await connection.query(
                """
                INSERT INTO account (customer, name, email) VALUES (\(profile.customerID), \(profile.name), \(profile.email))
                ON CONFLICT (customer) DO UPDATE SET name = COALESCE(excluded.name, account.name), email = COALESCE(excluded.email, account.email)
                """, logger: PostgresDatabase.quiet)
        }
    }
}

/// The sandbox identity provider's records in PostgreSQL.
public final class PostgresIdentityDirectory: IdentityDirectory {
    private let database: PostgresDatabase
    public init(database: PostgresDatabase) { self.database = database }

    public func userID(email: String) async throws -> String? {
        try await database.read { connection in
            try await connection.query("SELECT id FROM sandbox_id_user WHERE email = \(email)", logger: PostgresDatabase.quiet).collect().first?
                .decode(String.self)
        }
    }

    public func authorize(email: String, newID: String) async throws -> String {
        try await database.write { connection in
            // One statement, so two hosts signing the same email in at once agree on its id.
            try await connection.query(
                """
                INSERT INTO sandbox_id_user (id, email) VALUES (\(newID), \(email))
                ON CONFLICT (email) DO UPDATE SET revoked = false
                RETURNING id
                """, logger: PostgresDatabase.quiet
            ).collect().first?.decode(String.self) ?? newID
        }
    }

    public func status(userID: String) async throws -> CredentialState {
        try await database.read { connection in
            guard
                let revoked = try await connection.query("SELECT revoked FROM sandbox_id_user WHERE id = \(userID)", logger: PostgresDatabase.quiet)
                    .collect().first?.decode(Bool.self)
            else { return .notFound }
            return revoked ? .revoked : .authorized
        }
    }

    public func revoke(userID: String) async throws {
        try await database.write { connection in
            try await connection.query("UPDATE sandbox_id_user SET revoked = true WHERE id = \(userID)", logger: PostgresDatabase.quiet)
            try await connection.query("DELETE FROM sandbox_id_refresh WHERE user_id = \(userID)", logger: PostgresDatabase.quiet)
        }
    }

    public func storeRefreshToken(hash: String, userID: String, expiresAt: Date) async throws {
        try await database.write { connection in
            _ = try await connection.query(
                """
                INSERT INTO sandbox_id_refresh (token_hash, user_id, expires_at) VALUES (\(hash), \(userID), \(expiresAt.timeIntervalSince1970))
                """, logger: PostgresDatabase.quiet)
        }
    }

    public func takeRefreshToken(hash: String) async throws -> (userID: String, expiresAt: Date)? {
        let taken = try await database.write { connection in
            // DELETE … RETURNING: of two hosts redeeming one token at once, exactly one gets it.
            try await connection.query(
                "DELETE FROM sandbox_id_refresh WHERE token_hash = \(hash) RETURNING user_id, expires_at", logger: PostgresDatabase.quiet
            )
            .collect().first?.decode((String, Double).self)
        }
        return taken.map { ($0.0, Date(timeIntervalSince1970: $0.1)) }
    }
}

extension PostgresWalletRepository: LiveObject {}
extension PostgresAccountProfileRepository: LiveObject {}
extension PostgresIdentityDirectory: LiveObject {}
