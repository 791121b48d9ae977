import Foundation
import ShopModels
import ShopSSH
import ShopSessions

/// Who a session is for, from what `serve`, `sshd-session` or `web` put in its environment.
public enum Visitor: Equatable, Sendable {
    /// An SSH key `serve` or sshd verified: the key is the account.
    case keyHolder(fingerprint: String)
    /// An SSH visitor without a key: nothing kept, no sign-in.
    case sshGuest(id: String)
    /// A browser visitor: nothing kept until they sign in.
    case browserGuest(id: String)
    /// A browser visitor whose cookie holds sign-in `session` (its id) of `account`, as `web` checked it.
    case browserAccount(account: String, session: String?, guestID: String)
    /// Someone at this machine's terminal.
    case local

    /// Reads the environment; refuses an id or fingerprint the servers would not have made.
    public init(_ environment: [String: String]) throws(ServiceStartFailure) {
        if let guest = try Self.guestID(SessionCommand.guestVariable, environment) {
            self = .sshGuest(id: guest)
        } else if let guest = try Self.guestID(SessionCommand.browserGuestVariable, environment) {
            if let account = environment[SessionCommand.browserAccountVariable], !account.isEmpty {
                guard account.count <= 200, MerchantEntry.isPlainLine(account), !account.contains(" ") else {
                    throw .usage("\(SessionCommand.browserAccountVariable) is not an account id: \"\(account.prefix(40))\"")
                }
                let session = environment[SessionCommand.browserSessionVariable].flatMap { $0.isEmpty ? nil : $0 }
                if let session,
                    session.count > 64 || !session.hasPrefix("ses_")
                        || !session.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
                {
                    throw .usage("\(SessionCommand.browserSessionVariable) is not a session id: \"\(session.prefix(40))\"")
                }
                self = .browserAccount(account: account, session: session, guestID: guest)
            } else {
                self = .browserGuest(id: guest)
            }
        } else if let fingerprint = environment[SessionCommand.fingerprintVariable], !fingerprint.isEmpty {
            guard SSHPublicKeyIdentity.isFingerprint(fingerprint) else {
                throw .usage("\(SessionCommand.fingerprintVariable) is not an OpenSSH SHA256 fingerprint: \"\(fingerprint)\"")
            }
            self = .keyHolder(fingerprint: fingerprint)
        } else {
            self = .local
        }
    }

    /// The customer id carts and wallets are kept under before any sign-in.
    public var guestID: String {
        switch self {
        case .sshGuest(let id): "ssh-guest:\(id)"
        case .browserGuest(let id), .browserAccount(_, _, let id): "web-guest:\(id)"
        case .keyHolder, .local: "local:\(ProcessUser.name)"
        }
    }

    private static func guestID(_ variable: String, _ environment: [String: String]) throws(ServiceStartFailure) -> String? {
        guard let guest = environment[variable], !guest.isEmpty else { return nil }
        guard SessionCommand.isGuestID(guest) else {
            throw .usage("\(variable) is not a guest id made by storefront serve or web: \"\(guest.prefix(40))\"")
        }
        return guest
    }
}
