import ArgumentParser
import Foundation
import MerchantReports
import ShopIdentity
import ShopModels
import ShopPorts
import ShopSSH
import SystemPackage

/// `storefront tokens`: the API's personal access tokens, made, listed and revoked from the server's shell.
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Make, list and revoke tokens for the HTTP API (docs/api.md).",
        subcommands: [Create.self, List.self, Revoke.self],
        defaultSubcommand: List.self
    )

    /// `storefront tokens create --name N --customer ID [--scope merchant --admin-keys FILE]`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token and print its secret, once.",
            discussion: """
                A shop token acts for one shopper: --customer is their customer id, as `storefront orders list` shows \
                it (ssh:SHA256:… for an SSH key, sandbox-id:… for a Sandbox ID account). A merchant token reaches \
                /v1/merchant: its --customer must be ssh: and a key in the --admin-keys file. The secret is printed \
                once and kept only as its SHA-256.
                """
        )

        @Option(help: ArgumentHelp("What the token is for, shown when listing (1 to 60 characters).", valueName: "name"))
        var name: String

        @Option(help: ArgumentHelp("Whose token it is: a customer id (ssh:SHA256:…, sandbox-id:…).", valueName: "id"))
        var customer: String

        @Option(help: ArgumentHelp("shop (a shopper's own cart, wallet and orders) or merchant.", valueName: "scope"))
        var scope: String = APITokenScope.shop.rawValue

        @Option(
            name: .customLong("admin-keys"),
            help: ArgumentHelp(
                "For a merchant token: the authorized_keys file of `serve --admin-keys`, which must hold the --customer key.", valueName: "file"))
        var adminKeys: String?

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func validate() throws {
            try TokenRules.check(name: name, customer: customer)
            guard let scope = APITokenScope(rawValue: scope) else {
                throw ValidationError("--scope must be shop or merchant, not \"\(scope.prefix(20))\"")
            }
            if scope == .merchant, adminKeys == nil {
                throw ValidationError("a merchant token needs --admin-keys: the file of keys let into the merchant console")
            }
            if scope == .shop, adminKeys != nil { throw ValidationError("--admin-keys is for merchant tokens; add --scope merchant") }
        }

        func run() async throws {
            let scope = APITokenScope(rawValue: scope) ?? .shop
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
            let (tokens, close) = try await shop.openTokens()
            defer { close() }
            let secret = PersonalAccessToken.mint()
            let record = secret.record(name: name.trimmingCharacters(in: .whitespaces), owner: customer, scope: scope, at: Date())
            do { try await tokens.add(record) } catch {
                complain("cannot store the token: \(error)")
                throw ExitCodes.ioError
            }
            if json {
                try writeResult(
                    try jsonText([
                        "token": secret.secret, "id": record.id, "name": record.name, "owner": record.owner, "scope": record.scope.rawValue,
                    ]), what: "the token")
            } else {
                // The secret alone on stdout, for `TOKEN=$(storefront tokens create …)`; the note for the person on stderr.
                try writeResult(secret.secret, what: "the token")
                _ = storefront.emit(
                    "made \(record.scope.rawValue) token \(record.id) \"\(record.name)\" for \(record.owner); the secret above is shown once\n",
                    to: STDERR_FILENO)
            }
        }
    }

    /// `storefront tokens list [--customer ID] [--json]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every token (or one customer's), revoked ones too; never a secret.")

        @Option(help: ArgumentHelp("Only this customer's tokens.", valueName: "id"))
        var customer: String?

        @OptionGroup var shop: ShopDatabaseOptions

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws {
            let (tokens, close) = try await shop.openTokens()
            defer { close() }
            let records: [APITokenRecord]
            do { records = try await tokens.tokens(owner: customer) } catch {
                complain("\(error)")
                throw ExitCodes.ioError
            }
            try writeResult(json ? try TokenReport.json(records) : TokenReport.table(records), what: "the tokens")
        }
    }

    /// `storefront tokens revoke ID`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token: requests with it are refused from now on.")

        @Argument(help: ArgumentHelp("The token's id (tok_…), as `storefront tokens list` shows it.", valueName: "id"))
        var id: String

        @OptionGroup var shop: ShopDatabaseOptions

        func run() async throws {
            let (tokens, close) = try await shop.openTokens()
            defer { close() }
            let revoked: APITokenRecord?
            do { revoked = try await tokens.revoke(id: id, owner: nil, at: Date()) } catch {
                complain("\(error)")
                throw ExitCodes.ioError
            }
            guard let revoked else {
                complain("no token has the id \"\(id.prefix(40))\": `storefront tokens list` shows them")
                throw ExitCodes.dataError
            }
            _ = storefront.emit("revoked \(revoked.id) \"\(revoked.name)\" of \(revoked.owner)\n", to: STDERR_FILENO)
        }
    }
}

/// What every token command checks and prints alike.
enum TokenRules {
    static func check(name: String, customer: String) throws {
        guard APITokenRecord.isValidName(name.trimmingCharacters(in: .whitespaces)) else {
            throw ValidationError("--name must be 1 to 60 characters on one line, with nothing a terminal would act on")
        }
        let kinds = ["ssh:SHA256:", "sandbox-id:"]
        guard kinds.contains(where: { customer.hasPrefix($0) && customer.count > $0.count }), customer.count <= 200 else {
            throw ValidationError(
                "--customer must be a customer id such as ssh:SHA256:… (a key) or sandbox-id:… (a Sandbox ID account), not \"\(customer.prefix(40))\""
            )
        }
        if customer.hasPrefix("ssh:"), !SSHPublicKeyIdentity.isFingerprint(String(customer.dropFirst(4))) {
            throw ValidationError("--customer \(customer.prefix(60)) is not ssh: and an OpenSSH SHA256 fingerprint (ssh-keygen -lf KEY shows it)")
        }
    }
}
