import Crypto
import Foundation
import ShopLanguages
import ShopModels
import ShopPorts

/// Six-digit codes sent by email: to sign in, to link a new SSH key to an account, to verify an email.
///
/// Order of calls: `request` (the code to mail, or nil when a limit held; the shopper is told the same line either
/// way) → the mail goes out at once → `check` with what the shopper typed. Only an HMAC of each code, keyed with the
/// install's secret, is stored; whether the email has an account is never looked at here, so the answer and its timing
/// are the same for every email.
public struct EmailCodes: Sendable {
    public typealias Purpose = CodePurpose

    private let store: any SignInCodeRepository
    private let key: SymmetricKey
    private let makeCode: @Sendable () -> String
    public let limits: CodeLimits

    /// The line every request is answered with, whatever came of it.
    public static let requestedLine = requestedWords.description
    /// `requestedLine` in the shopper's language.
    public static let requestedWords = Localized("If that email can get codes, one is on its way: it lasts 10 minutes.")

    public init(
        store: any SignInCodeRepository, key: SymmetricKey, limits: CodeLimits = CodeLimits(),
        makeCode: @escaping @Sendable () -> String = EmailCodes.randomCode
    ) {
        self.store = store
        self.key = key
        self.limits = limits
        self.makeCode = makeCode
    }

    /// Six digits from the system's CSPRNG, leading zeros kept.
    public static func randomCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let number = Int.random(in: 0..<1_000_000, using: &generator)
        return String(repeating: "0", count: 6 - String(number).count) + String(number)
    }

    /// Files a new code for `email` (checked as every front checks an email) asked by `client`; returns the code to
    /// mail, or nil when the email or the client asked for too many within the hour.
    public func request(email: String, purpose: Purpose, client: String, at date: Date) async throws(EmailCodeError) -> String? {
        guard let email = Self.normalized(email) else { throw .invalidEmail(Contact.emailProblem(email)?.description ?? "Enter an email address.") }
        let code = makeCode()
        do {
            let filed = try await store.file(
                hash(code, email: email, purpose: purpose), email: email, purpose: purpose.rawValue, client: client, at: date, limits: limits)
            return filed ? code : nil
        } catch {
            throw .storage("\(error)")
        }
    }

    /// What `typed` comes to for `email`; an accepted code is used up.
    public func check(email: String, typed: String, purpose: Purpose, at date: Date) async throws(EmailCodeError) -> CodeCheck {
        guard let email = Self.normalized(email) else { throw .invalidEmail(Contact.emailProblem(email)?.description ?? "Enter an email address.") }
        // Spaces and dashes people type between the digits ("123 456") are not part of the code.
        let digits = typed.filter { !" -".contains($0) }
        do {
            return try await store.check(
                hash(digits, email: email, purpose: purpose), email: email, purpose: purpose.rawValue, at: date, limits: limits)
        } catch {
            throw .storage("\(error)")
        }
    }

    /// The email as codes are filed under it: trimmed and in lower case; nil when it is not an email address.
    static func normalized(_ email: String) -> String? {
        let trimmed = email.trimmingCharacters(in: .whitespaces)
        return Contact.emailProblem(trimmed) == nil ? trimmed.lowercased() : nil
    }

    /// HMAC-SHA256 of the purpose, the email and the code under the install's key, in hex: a leaked table gives no
    /// code without the key, and a code for one email or purpose is no other's.
    func hash(_ code: String, email: String, purpose: Purpose) -> String {
        let message = Data("\(purpose.rawValue)\n\(email)\n\(code)".utf8)
        return HMAC<SHA256>.authenticationCode(for: message, using: key).map { String(format: "%02x", $0) }.joined()
    }
}

/// Why a code was not filed or checked.
public enum EmailCodeError: Error, Equatable, Sendable {
    case invalidEmail(String)
    case storage(String)
}

/// Why a code was not sent: the email is not one (ask again), or codes cannot go out now (say so and stop).
public enum CodeSendingProblem: Error, Equatable, Sendable {
    case invalidEmail(String)
    case unavailable(String)
}

extension EmailCodes {
    /// Files a code for `email` and mails it at once through `mailer`: what every front does when an email is entered.
    /// Nothing is mailed when a limit held, and the caller says the same line either way.
    public func send(email: String, purpose: Purpose, client: String, mailer: CodeMailer, at date: Date) async throws(CodeSendingProblem) {
        let code: String?
        do throws(EmailCodeError) { code = try await request(email: email, purpose: purpose, client: client, at: date) } catch {
            switch error {
            case .invalidEmail(let problem): throw .invalidEmail(problem)
            case .storage(let why): throw .unavailable("Codes cannot be sent now: \(why)")
            }
        }
        guard let code else { return }
        do throws(MailTransportError) {
            try await mailer.send(code: code, purpose: purpose, to: email.trimmingCharacters(in: .whitespaces), at: date)
        } catch {
            // Said whether or not the email has an account: the message was written and not sent either way.
            throw .unavailable("The code could not be mailed: \(error). Try again later.")
        }
    }
}
