import Foundation
import MerchantReports
import ShopBootstrap
import ShopIdentity
import ShopModels
import ShopPorts
import ShopSSH

/// `storefront tokens`: the API's personal access tokens, made, listed and revoked from the server's shell.
public enum TokenCommands {
    /// Makes a token and prints its secret once: alone on stdout (for `TOKEN=$(…)`) with a note on stderr, or as
    /// JSON. A merchant token's customer must be a key in `adminKeys` (65), which must load (78).
    public static func create(
        name: String, customer: String, scope: APITokenScope, adminKeys: String?, json: Bool, configuration: ShopConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        if scope == .merchant, let adminKeys {
            let keys: AdminKeys
            do { keys = try AdminKeys.load(adminKeys) } catch {
                complain("\(error)")
                throw ExitCodes.configError
            }
            let fingerprint = customer.hasPrefix("ssh:") ? String(customer.dropFirst(4)) : ""
            guard keys.fingerprints.contains(fingerprint) else {
                complain(
                    "\(customer) is not an admin key: \(adminKeys) does not hold \(fingerprint.isEmpty ? "it (a merchant token's --customer is ssh:SHA256:…)" : fingerprint)"
                )
                throw ExitCodes.dataError
            }
        }
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        // An account's id must name an account there now (one merged away is gone).
        if customer.hasPrefix("acct_"), ((try? await storage.accounts.account(id: customer)) ?? nil) == nil {
            complain("no account \(customer) in this shop: storefront accounts list shows them")
            throw ExitCodes.dataError
        }
        let secret = PersonalAccessToken.mint()
        let record = secret.record(name: name.trimmingCharacters(in: .whitespaces), owner: customer, scope: scope, at: Date())
        do { try await storage.tokens.add(record) } catch {
            complain("cannot store the token: \(error)")
            throw ExitCodes.ioError
        }
        if json {
            try writeResult(
                try jsonText([
                    "token": secret.secret, "id": record.id, "name": record.name, "owner": record.owner, "scope": record.scope.rawValue,
                ]), what: "the token")
        } else {
            try writeResult(secret.secret, what: "the token")
            emit(
                "made \(record.scope.rawValue) token \(record.id) \"\(record.name)\" for \(record.owner); the secret above is shown once\n",
                to: STDERR_FILENO)
        }
    }

    /// Every token (or one customer's), revoked ones too; never a secret.
    public static func list(
        customer: String?, json: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let records: [APITokenRecord]
        do { records = try await storage.tokens.tokens(owner: customer) } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        try writeResult(json ? try TokenReport.json(records) : TokenReport.table(records), what: "the tokens")
    }

    /// Revokes the token `id`; 65 when there is none.
    public static func revoke(id: String, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws
    {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let revoked: APITokenRecord?
        do { revoked = try await storage.tokens.revoke(id: id, owner: nil, at: Date()) } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        guard let revoked else {
            complain("no token has the id \"\(id.prefix(40))\": `storefront tokens list` shows them")
            throw ExitCodes.dataError
        }
        emit("revoked \(revoked.id) \"\(revoked.name)\" of \(revoked.owner)\n", to: STDERR_FILENO)
    }
}

extension TokenCommands {
    /// What is wrong with a new token's request, if anything: its name, its customer, its scope, and `--admin-keys`,
    /// which a merchant token needs and a shop token must not have.
    public static func problem(name: String, customer: String, scope: String, adminKeys: String?) -> String? {
        if let problem = problem(name: name, customer: customer) { return problem }
        switch APITokenScope(rawValue: scope) {
        case nil: return "--scope must be shop or merchant, not \"\(scope.prefix(20))\""
        case .merchant? where adminKeys == nil: return "a merchant token needs --admin-keys: the file of keys let into the merchant console"
        case .shop? where adminKeys != nil: return "--admin-keys is for merchant tokens; add --scope merchant"
        default: return nil
        }
    }

    /// What is wrong with a new token's name or customer, if anything.
    public static func problem(name: String, customer: String) -> String? {
        guard APITokenRecord.isValidName(name.trimmingCharacters(in: .whitespaces)) else {
            return "--name must be 1 to 60 characters on one line, with nothing a terminal would act on"
        }
        if customer.hasPrefix("ssh:"), !SSHPublicKeyIdentity.isFingerprint(String(customer.dropFirst(4))) {
            return "--customer \(customer.prefix(60)) is not ssh: and an OpenSSH SHA256 fingerprint (ssh-keygen -lf KEY shows it)"
        }
        // One rule with `orders --customer`: every id the shop prints for a customer.
        guard OrderCommands.isCustomerID(customer), customer.count <= 200 else {
            return "--customer must be a customer id: \(OrderCommands.customerIDKinds), not \"\(customer.prefix(40))\""
        }
        return nil
    }
}
