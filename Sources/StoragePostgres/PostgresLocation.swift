import Foundation
import PostgresNIO
import ShopCredentialFile
import SystemPackage

/// Where the shop's PostgreSQL is and how to log in: read from a `postgres://` URL, with the
/// password from the URL or from a password file (`PGPASSFILE`, else `~/.pgpass`).
///
/// Prints without its password, so it can go into logs and errors as it is.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode` values; the default, as in libpq, is `prefer`.
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    public var sslMode: SSLMode
    /// A folder holding the server's Unix socket (`?host=/path`, as libpq takes it); TCP when nil.
    public var socketDirectory: String?
    /// The CA bundle `verify-ca` and `verify-full` trust (`?sslrootcert=`); the system's when nil.
    public var rootCertificate: String?
    /// Seconds to wait for a connection (`?connect_timeout=`), as libpq's parameter.
    public var connectTimeout: Int
    /// What `pg_stat_activity` shows for the shop's connections (`?application_name=`).
    public var applicationName: String
    var password: String?

    public var hasPassword: Bool { password != nil }

    /// The URL with the password left out.
    public var description: String {
        var query = "sslmode=\(sslMode.rawValue)"
        if let socketDirectory { query += "&host=\(socketDirectory)" }
        return "postgres://\(user)@\(host):\(port)/\(database)?\(query)"
    }

    /// Reads a `postgres://` (or `postgresql://`) URL.
    ///
    /// Order of look-ups for the password: the URL's, then the password file named by
    /// `environment["PGPASSFILE"]`, then `~/.pgpass`; a password file others can read is refused.
    public static func parse(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(PostgresLocationError)
        -> PostgresLocation
    {
        guard let url = URL(string: text) else { throw .notAURL }
        return try parse(url, environment: environment)
    }

    /// Reads a `postgres://` (or `postgresql://`) URL already parsed as one; the same look-ups as above.
    public static func parse(_ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws(PostgresLocationError)
        -> PostgresLocation
    {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else { throw .notAURL }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let known: Set<String> = ["sslmode", "host", "sslrootcert", "connect_timeout", "application_name"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) { throw .unknownParameter(unknown) }
        let sslMode: SSLMode
        if let raw = query["sslmode"] {
            guard let mode = SSLMode(rawValue: raw) else { throw .badSSLMode(raw) }
            sslMode = mode
        } else {
            sslMode = .prefer
        }
        let timeout = query["connect_timeout"].map { Int($0) } ?? 5
        guard let connectTimeout = timeout, connectTimeout > 0, connectTimeout <= 600 else {
            throw .badConnectTimeout(query["connect_timeout"] ?? "")
        }
        let host = components.percentEncodedHost.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw .badPort(port) }
        let user = components.user ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        let database = path.isEmpty ? user : path
        guard !database.contains("/") else { throw .badDatabaseName(database) }
        var location = PostgresLocation(
            host: host, port: port, user: user, database: database, sslMode: sslMode,
            socketDirectory: query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil },
            rootCertificate: query["sslrootcert"], connectTimeout: connectTimeout,
            applicationName: query["application_name"] ?? "storefront", password: components.password
        )
        if query["host"].map({ !$0.hasPrefix("/") }) == true {
            throw .unknownParameter("host (only a socket folder, starting with /, is taken there)")
        }
        if location.password == nil { location.password = try PasswordFile.password(for: location, environment: environment) }
        return location
    }

    /// The pool's settings: the endpoint, the login, and TLS as `sslmode` asks.
    func clientConfiguration() throws(PostgresLocationError) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketDirectory {
            configuration = .init(unixSocketPath: socketPath(in: socketDirectory), username: user, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch try tlsPolicy() {
                case .disable: .disable
                case .prefer(let settings): .prefer(settings)
                case .require(let settings): .require(settings)
                }
            configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(connectTimeout)
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    /// The same settings for one connection of its own, outside the pool.
    func connectionConfiguration() throws(PostgresLocationError) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketDirectory {
            configuration = .init(unixSocketPath: socketPath(in: socketDirectory), username: user, password: password, database: database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            do {
                tls =
                    switch try tlsPolicy() {
                    case .disable: .disable
                    case .prefer(let settings): .prefer(try NIOSSLContext(configuration: settings))
                    case .require(let settings): .require(try NIOSSLContext(configuration: settings))
                    }
            } catch let error as PostgresLocationError {
                throw error
            } catch {
                throw .unreadableRootCertificate("\(rootCertificate ?? "the system's CA bundle"): \(error)")
            }
            configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(Int64(connectTimeout))
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }

    private func socketPath(in directory: String) -> String { "\(directory)/.s.PGSQL.\(port)" }

    private enum TLSPolicy {
        case disable
        case prefer(TLSConfiguration)
        case require(TLSConfiguration)
    }

    /// libpq's modes on NIOSSL: `prefer` and `require` encrypt without checking the certificate,
    /// `verify-ca` checks the chain, `verify-full` the chain and the host name.
    private func tlsPolicy() throws(PostgresLocationError) -> TLSPolicy {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable:
            return .disable
        case .allow, .prefer:
            tls.certificateVerification = .none
            return .prefer(tls)
        case .require:
            tls.certificateVerification = .none
            return .require(tls)
        case .verifyCA, .verifyFull:
            tls.certificateVerification = sslMode == .verifyCA ? .noHostnameVerification : .fullVerification
            if let rootCertificate {
                guard FileManager.default.isReadableFile(atPath: rootCertificate) else { throw .unreadableRootCertificate(rootCertificate) }
                tls.trustRoots = .file(rootCertificate)
            }
            return .require(tls)
        }
    }
}

extension PostgresLocation {
    /// One password-file line split into its fields, escapes removed (exposed for tests).
    public static func passwordFileFields(_ line: String) -> [String] { PasswordFile.split(line) }
}

/// Why a database URL or its password file cannot be used; never repeats a password.
public enum PostgresLocationError: Error, Equatable, CustomStringConvertible {
    case notAURL
    case unknownParameter(String)
    case badSSLMode(String)
    case badConnectTimeout(String)
    case badPort(Int)
    case badDatabaseName(String)
    case unreadableRootCertificate(String)
    case passwordFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .notAURL:
            "the database must be a URL like postgres://USER@HOST:5432/DATABASE?sslmode=require"
        case .unknownParameter(let name):
            "the database URL has a parameter storefront does not take: \(name) (it takes sslmode, host, sslrootcert, connect_timeout, application_name)"
        case .badSSLMode(let mode):
            "the database URL's sslmode \"\(mode)\" is not one of \(PostgresLocation.SSLMode.allCases.map(\.rawValue).joined(separator: ", "))"
        case .badConnectTimeout(let value):
            "the database URL's connect_timeout \"\(value)\" is not a number of seconds from 1 to 600"
        case .badPort(let port):
            "the database URL's port \(port) is not from 1 to 65535"
        case .badDatabaseName(let name):
            "the database URL's database name \"\(name)\" has a slash in it"
        case .unreadableRootCertificate(let path):
            "cannot read sslrootcert \(path)"
        case .passwordFile(let path, let reason):
            "cannot use the password file \(path): \(reason)"
        }
    }
}

/// libpq's password file: lines `host:port:database:user:password`, `*` matching anything, `\` escaping.
enum PasswordFile {
    static func password(for location: PostgresLocation, environment: [String: String]) throws(PostgresLocationError) -> String? {
        let explicit = environment["PGPASSFILE"]
        guard let path = explicit ?? environment["HOME"].map({ "\($0)/.pgpass" }) else { return nil }
        let data: Data
        do {
            data = try ProtectedFile.read(FilePath(path))
        } catch .missing where explicit == nil {
            return nil
        } catch {
            throw .passwordFile(path: path, reason: reason(error))
        }
        let host = location.socketDirectory == nil ? location.host : "localhost"
        let wanted = [host, String(location.port), location.database, location.user]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = split(String(line))
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// Splits on unescaped colons and removes the escapes.
    static func split(_ line: String) -> [String] {
        var fields = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }

    private static func reason(_ failure: ProtectedFile.Failure) -> String {
        switch failure {
        case .missing: "it does not exist"
        case .notRegularFile: "it is not a regular file"
        case .wrongOwner(let uid): "it belongs to another user (uid \(uid))"
        case .tooOpen(let mode): "others can read it (mode \(String(mode, radix: 8))); chmod 600 it"
        case .io(let message): message
        }
    }
}
