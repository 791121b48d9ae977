import Foundation
import ShopLanguages
import ShopModels
import ShopPorts

/// API tokens on the account screen: a name asked for, the token made and kept (its hash), its secret shown once;
/// and a token revoked.
@MainActor
enum APITokenForm {
    /// The choices of how long a token made in a browser tab lasts, the first the default.
    static let lastingChoices = [untilSignOut, untilRevoked]
    static let untilSignOut = "until this browser signs out"
    static let untilRevoked = "until revoked"

    /// The form; in a browser tab it asks how long the token lasts, ending with the tab's sign-in unless told otherwise.
    static func make(inBrowserSession: Bool = false) -> FormState {
        var fields = [FormState.Field(id: "name", label: "Name", hint: "what it is for")]
        if inBrowserSession {
            fields.append(FormState.Field(id: "lasts", label: "Lasts", hint: "Space to change", options: lastingChoices))
        }
        return FormState(
            purpose: .apiToken, title: "Make an API token",
            message: "A token lets a script use the shop's HTTP API as you: your cart, wallet and orders. Its secret is shown once.",
            fields: fields,
            submitLabel: "Make token"
        )
    }

    static func submit(_ state: inout FormFeature.State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        let name = form.value("name").trimmingCharacters(in: .whitespaces)
        guard APITokenRecord.isValidName(name) else {
            state.shell.form?.showFieldErrors(["name": "Enter 1 to 60 characters on one line."])
            return .none
        }
        guard let access = env.dependencies.accounts.apiTokens else { return .none }
        state.shell.form?.showFieldErrors([:])
        state.shell.form?.isBusy = true
        state.shell.form?.status = "Making the token…"
        state.shell.form?.isStatusError = false
        let (customer, dates) = (state.customerID, env.dependencies.accounts.dates)
        // A token made in a browser tab ends with the tab's sign-in, so a sign-out anywhere takes it too.
        let session = form.value("lasts") == untilRevoked ? nil : access.session
        return .run { send in
            var made = access.mint(name, customer, dates.now())
            made.record.session = session
            do {
                try await access.repository.add(made.record)
                send(.form(.apiTokenMade(secret: made.secret, name: name)))
            } catch {
                send(.form(.failed(message: "The token could not be kept: \(error)", field: nil)))
            }
        }
    }

    /// Revokes the token on `row`, then reads the account again.
    static func revoke(_ row: AccountRow, _ state: inout AccountFeature.State, _ env: ShopEnvironment) -> Effect {
        guard let access = env.dependencies.accounts.apiTokens else { return .none }
        state.screen.newToken = nil
        let accounts = env.dependencies.accounts
        let customer = state.customerID
        return .run(id: .wallet) { send in
            let notice: Notice
            do {
                let revoked = try await access.repository.revoke(id: row.id, owner: customer, at: accounts.dates.now())
                notice =
                    revoked == nil
                    ? Notice(.error, "That token is not yours.")
                    : Notice(.info, "Revoked the token \(row.title): requests with it are refused from now on.")
            } catch {
                notice = Notice(.error, "The token could not be revoked: \(error)")
            }
            send(.account(.loaded(await AccountFeature.read(accounts, customer, notice: notice))))
        }
    }

    static func row(_ token: APITokenRecord) -> AccountRow {
        let used = token.lastUsedAt.map { Localized("last used \(UTCTime($0).minutes)") } ?? Localized("never used")
        let secret = "sfp_…\(token.lastFour) · \(token.scope.rawValue)"
        let detail = token.session == nil ? Localized("\(secret) · \(used)") : Localized("\(secret) · ends at sign-out · \(used)")
        return AccountRow(kind: .token, id: token.id, title: .verbatim(token.name), detail: detail, isDefault: false)
    }
}

extension AccountFeature {
    /// A token was made: its secret is shown on the account screen until the shopper leaves it, and the list is read again.
    static func showNewToken(_ state: inout State, secret: String, name: String, _ env: ShopEnvironment) -> Effect {
        state.screen.newToken = NewAPIToken(name: name, secret: secret)
        state.shell.notice = Notice(.info, "Made the token \(name). Copy its secret now: it is not shown again.")
        return reloadWallet(&state, env)
    }
}
