import Foundation
import LiveObjects
import ShopModels
import ShopPorts

/// Saved cards and addresses. A card row holds the provider's token, the network, the last 4 digits and the expiry:
/// never a full number or a security code.
public final class SQLWalletRepository: WalletTableRepository {
    private let database: any SQLDatabase
    public init(database: any SQLDatabase) { self.database = database }

    public func wallet(forCustomer customer: String) async throws -> WalletContents {
        // Cards and addresses from one snapshot: a sample filled while this reads is seen whole or not at all.
        try await database.run(.readConsistent) { connection in
            var wallet = WalletContents()
            for row in try connection.rows(
                """
                SELECT token, network, last_four, expiry_month, expiry_year, is_default FROM wallet_card WHERE customer = \(customer)
                ORDER BY added, id
                """)
            {
                guard
                    let card = PaymentMethod.stored(
                        token: try row["token"], network: try row["network"], lastFour: try row["last_four"], expiryMonth: try row["expiry_month"],
                        expiryYear: try row["expiry_year"])
                else { continue }
                wallet.cards.append(card)
                if try row["is_default"] { wallet.defaultCardID = try row["token"] }
            }
            for row in try connection.rows(
                """
                SELECT id, name, email, phone, street, street2, city, region, postal_code, country, is_default FROM address
                WHERE customer = \(customer) ORDER BY added, id
                """)
            {
                wallet.addresses.append(
                    Contact(
                        id: try row["id"], name: try row["name"], email: try row["email"], phone: try row["phone"],
                        address: PostalAddress(
                            street: try row["street"], street2: try row["street2"], city: try row["city"], region: try row["region"],
                            postalCode: try row["postal_code"], countryCode: try row["country"])))
                if try row["is_default"] { wallet.defaultAddressID = try row["id"] }
            }
            return wallet
        }
    }

    public func addCard(_ card: PaymentMethod, forCustomer customer: String, makeDefault: Bool) async throws {
        try await database.run(.write) { connection in try Self.insert(card, customer: customer, makeDefault: makeDefault, on: connection) }
    }

    public func addAddress(_ address: Contact, forCustomer customer: String, makeDefault: Bool) async throws {
        try await database.run(.write) { connection in try Self.insert(address, customer: customer, makeDefault: makeDefault, on: connection) }
    }

    public func fillIfEmpty(_ contents: WalletContents, forCustomer customer: String) async throws -> WalletContents {
        try await database.run(.write) { connection in
            let held = try connection.row(
                "SELECT 1 FROM wallet_card WHERE customer = \(customer) UNION ALL SELECT 1 FROM address WHERE customer = \(customer) LIMIT 1")
            guard held == nil else { return }
            // Every insert is an upsert on fixed ids, so two hosts filling one wallet at once leave one copy of each.
            for card in contents.cards { try Self.insert(card, customer: customer, makeDefault: card.id == contents.defaultCardID, on: connection) }
            for address in contents.addresses {
                try Self.insert(address, customer: customer, makeDefault: address.id == contents.defaultAddressID, on: connection)
            }
        }
        return try await wallet(forCustomer: customer)
    }

    /// Whether a new row becomes the default (asked for, or the first), and its place in the order rows were added.
    /// The customer's rows are locked first on PostgreSQL, so two hosts adding at once number in turn.
    private static func prepareAdd(_ rows: WalletRowTable, customer: String, makeDefault: Bool, on connection: any SQLConnection) throws -> (
        isDefault: Bool, added: Int
    ) {
        let table = rows.rawValue
        let held = try connection.rows("SELECT is_default, added FROM \(raw: table) WHERE customer = \(customer)\(raw: connection.forUpdate)")
        let hasDefault = try held.contains { try $0["is_default"] }
        let isDefault = makeDefault || !hasDefault
        if isDefault { try connection.execute("UPDATE \(raw: table) SET is_default = \(false) WHERE customer = \(customer)") }
        return (isDefault, try held.map { try $0["added"] as Int }.max().map { $0 + 1 } ?? 1)
    }

    private static func insert(_ card: PaymentMethod, customer: String, makeDefault: Bool, on connection: any SQLConnection) throws {
        let (isDefault, added) = try prepareAdd(.cards, customer: customer, makeDefault: makeDefault, on: connection)
        try connection.execute(
            """
            INSERT INTO wallet_card (customer, id, token, network, last_four, expiry_month, expiry_year, is_default, added)
            VALUES (\(customer), \(card.id), \(card.id), \(card.network.rawValue), \(card.lastFour), \(card.expiry.month), \(card.expiry.year),
                \(isDefault), \(added))
            ON CONFLICT (customer, id) DO UPDATE SET token = excluded.token, network = excluded.network, last_four = excluded.last_four,
                expiry_month = excluded.expiry_month, expiry_year = excluded.expiry_year, is_default = excluded.is_default, added = excluded.added
            """)
    }

    private static func insert(_ address: Contact, customer: String, makeDefault: Bool, on connection: any SQLConnection) throws {
        let (isDefault, added) = try prepareAdd(.addresses, customer: customer, makeDefault: makeDefault, on: connection)
        let postal = address.address
        try connection.execute(
            """
            INSERT INTO address (customer, id, name, street, street2, city, region, postal_code, country, email, phone, is_default, added)
            VALUES (\(customer), \(address.id), \(address.name), \(postal.street), \(postal.street2), \(postal.city), \(postal.region),
                \(postal.postalCode), \(postal.countryCode), \(address.email), \(address.phone), \(isDefault), \(added))
            ON CONFLICT (customer, id) DO UPDATE SET name = excluded.name, street = excluded.street, street2 = excluded.street2,
                city = excluded.city, region = excluded.region, postal_code = excluded.postal_code, country = excluded.country,
                email = excluded.email, phone = excluded.phone, is_default = excluded.is_default, added = excluded.added
            """)
    }

    public func setDefault(in rows: WalletRowTable, id: String, customer: String) async throws {
        let table = rows.rawValue
        try await database.run(.write) { connection in
            guard try connection.row("SELECT 1 FROM \(raw: table) WHERE customer = \(customer) AND id = \(id)") != nil else { return }
            try connection.execute("UPDATE \(raw: table) SET is_default = (id = \(id)) WHERE customer = \(customer)")
        }
    }

    public func remove(from rows: WalletRowTable, id: String, customer: String) async throws {
        let table = rows.rawValue
        try await database.run(.write) { connection in
            try connection.execute("DELETE FROM \(raw: table) WHERE customer = \(customer) AND id = \(id)")
            guard try connection.row("SELECT 1 FROM \(raw: table) WHERE customer = \(customer) AND is_default") == nil else { return }
            try connection.execute(
                """
                UPDATE \(raw: table) SET is_default = \(true)
                WHERE customer = \(customer) AND id = (SELECT id FROM \(raw: table) WHERE customer = \(customer) ORDER BY added, id LIMIT 1)
                """)
        }
    }
}

/// Account profiles.
public final class SQLAccountProfileRepository: AccountProfileRepository {
    private let database: any SQLDatabase
    public init(database: any SQLDatabase) { self.database = database }

    public func profile(forCustomer customer: String) async throws -> AccountProfile? {
        try await database.run(.read) { connection in
            try connection.row("SELECT name, email, language FROM account WHERE customer = \(customer)").map {
                AccountProfile(customerID: customer, name: try $0["name"], email: try $0["email"], language: try $0["language"])
            }
        }
    }

    public func save(_ profile: AccountProfile) async throws {
        try await database.run(.writeOneStatement) { connection in
            try connection.execute(
                """
                INSERT INTO account (customer, name, email, language)
                VALUES (\(profile.customerID), \(profile.name), \(profile.email), \(profile.language))
                ON CONFLICT (customer) DO UPDATE SET name = coalesce(excluded.name, account.name), email = coalesce(excluded.email, account.email),
                    language = coalesce(excluded.language, account.language)
                """)
        }
    }
}

extension SQLWalletRepository: LiveObject {}
extension SQLAccountProfileRepository: LiveObject {}
