import Foundation
import ShopBootstrap
import ShopModels
import ShopPorts
import ShopSSH

/// `storefront admins`: the accounts the operator names merchants; their SSH keys open the merchant console.
public enum AdminCommands {
    /// Names the account of `who` (a verified email, a key's fingerprint, or an account id) a merchant.
    public static func add(_ who: String, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws
    {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let account = try await resolve(who, in: storage)
        do { try await storage.admins.add(account.id, at: Date()) } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        let keys = account.waysIn.filter { if case .sshKey = $0.wayIn { true } else { false } }.count
        printSafely("\(account.id) is a merchant: its \(keys) SSH key\(keys == 1 ? "" : "s") open the merchant console from their next connection.")
    }

    /// Takes merchant rights from the account of `who`; 65 when it had none.
    public static func remove(_ who: String, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws
    {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let account = try await resolve(who, in: storage)
        let removed: Bool
        do { removed = try await storage.admins.remove(account.id) } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        guard removed else {
            complain("\(account.id) is not a merchant: `storefront admins list` shows who is")
            throw ExitCodes.dataError
        }
        printSafely("\(account.id) is no longer a merchant: its keys open the shop from their next connection.")
    }

    /// Every merchant account: its id, verified email, keys and since when.
    public static func list(json: Bool, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment)
        async throws
    {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        var rows: [(account: String, email: String, keys: [String], since: String)] = []
        do {
            for admin in try await storage.admins.admins() {
                let account = try await storage.accounts.account(id: admin.account)
                let keys = (account?.waysIn ?? []).compactMap { if case .sshKey(let key) = $0.wayIn { key } else { nil } }
                rows.append((admin.account, account?.email ?? "", keys, UTCTime(admin.addedAt).minutes))
            }
        } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        if json {
            let objects = rows.map { ["account": $0.account, "email": $0.email, "keys": $0.keys, "since": $0.since] as [String: Any] }
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try writeResult(String(decoding: data, as: UTF8.self) + "\n", what: "the merchants")
        } else if rows.isEmpty {
            printSafely("No merchant accounts: `storefront admins add EMAIL` names one (and --admin-keys still works).")
        } else {
            try writeResult(
                rows.map {
                    "\($0.account)  \($0.email.isEmpty ? "(no email)" : $0.email)  since \($0.since)  keys: \($0.keys.joined(separator: ", "))"
                }
                .joined(separator: "\n") + "\n", what: "the merchants")
        }
    }

    /// The account `who` names: a verified email, a key's fingerprint (`SHA256:…` or `ssh:SHA256:…`, whose account is
    /// made if the key was never seen), or an account id; 65 for none.
    static func resolve(_ who: String, in storage: ShopStorage) async throws -> CustomerAccount {
        let fingerprint = who.hasPrefix("ssh:") ? String(who.dropFirst(4)) : who
        guard SSHPublicKeyIdentity.isFingerprint(fingerprint) else { return try await AccountCommands.find(who, in: storage) }
        let account: CustomerAccount?
        do { account = try await storage.accounts.account(for: .sshKey(fingerprint: fingerprint), at: Date()) } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        guard let account else {
            complain("the key \(fingerprint) was taken off its account: name the account by its id or email")
            throw ExitCodes.dataError
        }
        return account
    }
}
