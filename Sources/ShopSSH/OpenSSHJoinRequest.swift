import ShopLanguages
import ShopSessions

/// A join's environment, checked as the SSH front checks what a client sends.
struct OpenSSHJoinRequest: Equatable {
    var term: String
    var isGuest: Bool
    var fingerprint: String
    /// The client's address, as sshd's SSH_CONNECTION gives it.
    var address: String
    /// The language the client's locale variables asked for (sshd's `AcceptEnv`), as `sshd-session` passed it on.
    var locale: String? = nil

    static func check(_ environment: [String: String]) -> Result<OpenSSHJoinRequest, OpenSSHJoinProblem> {
        guard let term = environment["TERM"], !term.isEmpty, term.count <= 64, term.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline })
        else { return .failure(.term) }
        let address = environment["SSH_CONNECTION"]?.split(separator: " ").first.map(String.init) ?? "unknown"
        guard address.count <= 64, address.allSatisfy({ $0.isHexDigit || ".:%".contains($0) || $0.isLetter }) else { return .failure(.address) }
        let locale = environment[SessionLanguage.variable].flatMap(SessionLanguage.normalized)
        if environment[SessionCommand.guestVariable] != nil {
            return .success(OpenSSHJoinRequest(term: term, isGuest: true, fingerprint: "", address: address, locale: locale))
        }
        guard let fingerprint = environment[SessionCommand.fingerprintVariable], SSHPublicKeyIdentity.isFingerprint(fingerprint) else {
            return .failure(.customer)
        }
        return .success(OpenSSHJoinRequest(term: term, isGuest: false, fingerprint: fingerprint, address: address, locale: locale))
    }
}

/// What is wrong with a join, worded for the shopper (the joiner prints it).
enum OpenSSHJoinProblem: Error, Equatable, CustomStringConvertible {
    case term, address, customer

    var description: String {
        switch self {
        case .term: "the terminal type (TERM) is missing or not one word of at most 64 characters"
        case .address: "sshd's SSH_CONNECTION does not start with an address"
        case .customer: "sshd named no verified key and no guest: the session has no customer"
        }
    }
}
