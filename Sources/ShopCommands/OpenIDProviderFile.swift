import Foundation
import ShopBootstrap
import ShopOpenID

/// The OpenID Connect providers a front offers, from the JSON file `--openid-providers` names (docs/openid-connect.md).
public enum OpenIDProviderFile {
    struct Entry: Decodable {
        var id: String
        var name: String
        var issuer: String
        var clientID: String
        var clientSecretFile: String?
        var teamID: String?
        var keyID: String?
        var privateKeyFile: String?
        var scopes: [String]?
        var emailDomains: [String]?

        enum CodingKeys: String, CodingKey {
            case id, name, issuer, scopes
            case emailDomains = "email_domains"
            case clientID = "client_id"
            case clientSecretFile = "client_secret_file"
            case teamID = "team_id"
            case keyID = "key_id"
            case privateKeyFile = "private_key_file"
        }
    }

    struct File: Decodable {
        var providers: [Entry]
    }

    /// A domain name: labels of letters, digits and dashes, at least two of them.
    static func isDomain(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.count <= 253 && labels.count >= 2
            && labels.allSatisfy { (1...63).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }
    }

    /// The providers in `path`; a file that is missing (66) or says something wrong (65) is told, naming the entry.
    public static func read(_ path: String) throws -> [OpenIDProviderSettings] {
        guard let data = FileManager.default.contents(atPath: path) else {
            complain("cannot read the OpenID Connect providers file \(path)")
            throw ExitCodes.noInput
        }
        do {
            return try parse(data, relativeTo: (path as NSString).deletingLastPathComponent)
        } catch let problem as CommandProblem {
            complain("\(path): \(problem.message)")
            throw ExitCodes.dataError
        } catch {
            complain("\(path) is not a providers file: \(error)")
            throw ExitCodes.dataError
        }
    }

    static func parse(_ data: Data, relativeTo directory: String) throws -> [OpenIDProviderSettings] {
        let file = try JSONDecoder().decode(File.self, from: data)
        var seen = Set<String>()
        return try file.providers.map { entry in
            let problem = { (text: String) in CommandProblem("provider \"\(entry.id.prefix(40))\": \(text)") }
            guard (1...40).contains(entry.id.count), entry.id.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
                throw problem("its id must be 1 to 40 lowercase letters, digits or dashes (it is in the callback's path)")
            }
            guard seen.insert(entry.id).inserted else { throw problem("two providers have this id") }
            guard (1...40).contains(entry.name.count), !entry.name.contains(where: { $0.isNewline }) else {
                throw problem("its name must be one short line")
            }
            guard let issuer = URL(string: entry.issuer), issuer.scheme == "https" || issuer.host == "127.0.0.1" || issuer.host == "localhost",
                issuer.query == nil, issuer.fragment == nil
            else { throw problem("its issuer must be an https URL without a query (http only on loopback)") }
            guard !entry.clientID.isEmpty, entry.clientID.count <= 200 else { throw problem("it needs a client_id") }
            let read = { (file: String) throws -> String in
                let path = file.hasPrefix("/") ? file : directory + "/" + file
                guard let text = FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }) else {
                    throw problem("cannot read \(path)")
                }
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let authentication: OpenIDProviderSettings.ClientAuthentication
            switch (entry.clientSecretFile, entry.teamID, entry.keyID, entry.privateKeyFile) {
            case (let secret?, nil, nil, nil): authentication = .secret(try read(secret))
            case (nil, let team?, let key?, let pem?): authentication = .apple(teamID: team, keyID: key, privateKeyPEM: try read(pem))
            case (nil, nil, nil, nil): authentication = .none
            default: throw problem("give client_secret_file, or team_id, key_id and private_key_file (Sign in with Apple), or neither")
            }
            let domains = entry.emailDomains ?? []
            guard domains.count <= 50, domains.allSatisfy(Self.isDomain) else {
                throw problem("email_domains must be up to 50 domains such as gmail.com (no wildcards)")
            }
            return OpenIDProviderSettings(
                name: entry.name, id: entry.id, issuer: entry.issuer, clientID: entry.clientID, authentication: authentication,
                scopes: entry.scopes ?? ["email", "profile"], emailDomains: domains)
        }
    }
}

/// The providers a terminal signs in with: `--openid-providers` (or `STOREFRONT_OPENID_PROVIDERS`) and `--web-origin`
/// (or `STOREFRONT_WEB_ORIGIN`), where its links open.
public enum TerminalOpenIDChoice {
    /// Nil without a providers file.
    public static func settings(
        providersFile: String?, webOrigin: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> TerminalOpenIDSettings? {
        guard let file = providersFile ?? environment["STOREFRONT_OPENID_PROVIDERS"] else { return nil }
        let origin = webOrigin ?? environment["STOREFRONT_WEB_ORIGIN"]
        if let problem = origin.flatMap(originProblem) {
            complain("STOREFRONT_WEB_ORIGIN: \(problem)")
            throw ExitCodes.configError
        }
        return TerminalOpenIDSettings(providers: try OpenIDProviderFile.read(file), webOrigin: origin.map { String($0.trimmingSuffix("/")) })
    }

    /// What is wrong with a web origin, or nil: http(s), a host, no path beyond "/", no query.
    public static func originProblem(_ text: String) -> String? {
        guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil, url.query == nil, url.fragment == nil,
            url.path.isEmpty || url.path == "/"
        else { return "the web origin must be like https://shop.example (a scheme and a host, no path): \(text.prefix(80))" }
        return nil
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : Substring(self)
    }
}
