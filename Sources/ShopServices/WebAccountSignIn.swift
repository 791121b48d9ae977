import Crypto
import Foundation
import ShopBootstrap
import ShopIdentity
import ShopOpenID
import ShopPorts
import ShopWebFront

/// The browser front's sign-in over the shop's storage: codes by email, and sessions held by a cookie.
public enum WebAccountSignIn {
    /// Sign-in by an emailed code (with a mailer) and with `providers`; `log` gets what failed inside (a provider that is
    /// down, the storage), which the visitor is told only as "try again later".
    public static func make(
        storage: ShopStorage, mailer: CodeMailer?, codeKey: SymmetricKey, providers: [OpenIDClient] = [],
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) -> WebSignIn {
        let codes = EmailCodes(store: storage.signInCodes, key: codeKey)
        let accounts = AccountSignIn(directory: storage.accounts, logins: storage.logins, dates: .system)
        var signIn = WebSignIn(
            requestCode: { email, client, locale in
                guard let mailer else { return ("Sign-in by email is off here: use a provider below.", true) }
                do throws(CodeSendingProblem) {
                    try await codes.send(email: email, purpose: .signIn, client: client, mailer: mailer.speaking(locale), at: Date())
                    return (EmailCodes.requestedLine, false)
                } catch {
                    switch error {
                    case .invalidEmail(let problem), .unavailable(let problem): return (problem, true)
                    }
                }
            },
            checkCode: { email, typed in
                let verdict: CodeCheck
                do throws(EmailCodeError) { verdict = try await codes.check(email: email, typed: typed, purpose: .signIn, at: Date()) } catch {
                    log("web sign-in: a code could not be checked: \(error)")
                    return .over(WebSignIn.tryAgainLater("Sign-in"))
                }
                switch verdict {
                case .accepted:
                    do {
                        return .signedIn(secret: try await accounts.signIn(verifiedEmail: email, kind: .browser, label: "email code").session.secret)
                    } catch {
                        log("web sign-in: an account could not be opened: \(error)")
                        return .over(WebSignIn.tryAgainLater("Sign-in"))
                    }
                case .wrong: return .again(verdict.message)
                case .expired, .tooManyTries, .noCode: return .over(verdict.message)
                }
            },
            account: { secret in
                let check: LoginCheck
                do { check = try await accounts.check(secret: secret) } catch { return .unavailable("\(error)") }
                guard case .valid(let record) = check else { return .none }
                let email = (try? await accounts.directory.account(id: record.account))??.email
                return .signedIn(WebSignedIn(id: record.account, label: email ?? record.account, session: record.id))
            },
            signOut: { secret in try? await accounts.end(secret: secret) },
            liveSessions: { ids in try? await accounts.logins.liveAccounts(ids: ids, at: accounts.dates.now()) }
        )
        if !providers.isEmpty { addOpenID(&signIn, providers: providers, storage: storage, accounts: accounts, key: codeKey, log: log) }
        return signIn
    }
}
