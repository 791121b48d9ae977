import PostgresNIO
import ShopPorts
import _ConnectionPoolModule

/// Why PostgreSQL could not be used; names the server, never a password.
public enum PostgresDatabaseError: Error, Equatable, CustomStringConvertible {
    case configuration(String)
    /// No connection, or no answer: the server is down, restarting, or the network is.
    case unreachable(location: String, reason: String)
    /// The server refused the login (wrong password, no such role or database).
    case refusedLogin(location: String, reason: String)
    /// The server answered with an error (`state` is its SQLSTATE).
    case server(state: String, message: String)
    case newerSchema(location: String, unknownMigrations: [String])
    case notMigrated(location: String, missing: [String])
    case noCatalog(location: String)

    public var description: String {
        switch self {
        case .configuration(let message):
            message
        case .unreachable(let location, let reason):
            "the shop's database \(location) is not reachable (\(reason))"
        case .refusedLogin(let location, let reason):
            "the shop's database \(location) refused the login: \(reason)"
        case .server(let state, let message):
            "the shop's database answered with an error: \(message) (SQLSTATE \(state))"
        case .newerSchema(let location, let unknown):
            "\(location) was written by a newer storefront (schema steps \(unknown.joined(separator: ", ")) are unknown to this version); upgrade storefront to use it."
        case .notMigrated(let location, let missing):
            "\(location) lacks schema steps \(missing.joined(separator: ", ")); run `storefront db migrate --database URL` first."
        case .noCatalog(let location):
            "\(location) has no catalog yet; import one with `storefront catalog import FILE --database URL`."
        }
    }

    /// Whether the error means the server could not be reached, rather than that it said no.
    public var isUnreachable: Bool {
        if case .unreachable = self { return true }
        return false
    }

    /// The driver's and the pool's errors as `PostgresDatabaseError`s; any other error as it is.
    static func translate(_ error: any Error, location: PostgresLocation) -> any Error {
        if let transaction = error as? PostgresTransactionError {
            // The first thing that went wrong decides: a failed BEGIN, else the body's own error, else the COMMIT's.
            if let cause = transaction.beginError ?? transaction.closureError ?? transaction.commitError {
                return translate(cause, location: location)
            }
        }
        if let pool = error as? ConnectionPoolError {
            // The circuit breaker trips after connection attempts kept failing; a lease is cancelled at a timeout.
            return PostgresDatabaseError.unreachable(location: location.description, reason: "\(pool)")
        }
        if error is CancellationError { return PostgresDatabaseError.unreachable(location: location.description, reason: "cancelled") }
        guard let psql = error as? PSQLError else { return error }
        return from(psql, location: location)
    }

    /// Sorts postgres-nio's errors into the ones an operator can act on.
    static func from(_ psql: PSQLError, location: PostgresLocation) -> PostgresDatabaseError {
        let place = location.description
        let state = psql.serverInfo?[.sqlState] ?? ""
        let message = psql.serverInfo?[.message] ?? psql.code.description
        switch psql.code {
        case .server:
            // Class 08: connection exceptions; 57P01-03: the server is shutting down or starting.
            if state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) { return .unreachable(location: place, reason: message) }
            // 53300: every connection max_connections allows is taken. Like an outage it passes, so
            // callers wait and retry instead of showing a shopper a server error.
            if state == "53300" { return .unreachable(location: place, reason: "no free connection (\(message)); see the connection sizing rule") }
            if state == "28P01" || state == "28000" || state == "3D000" { return .refusedLogin(location: place, reason: message) }
            return .server(state: state, message: message)
        case .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError:
            return .refusedLogin(
                location: place,
                reason: psql.code == .authMechanismRequiresPassword
                    ? "the server wants a password; put it in the URL or in PGPASSFILE" : psql.code.description)
        case .sslUnsupported:
            return .refusedLogin(location: place, reason: "sslmode asks for TLS and the server does not offer it")
        default:
            let underlying = psql.underlying.map { ": \($0)" } ?? ""
            return .unreachable(location: place, reason: psql.code.description + underlying)
        }
    }
}

extension PostgresDatabaseError {
    /// The words a shopper sees for a failed read or write.
    var storageError: StorageError {
        isUnreachable ? StorageError(StorageError.unavailableMessage, isUnavailable: true) : StorageError(description)
    }
}
