import ShopLanguages
import ShopModels
import ShopPorts

/// The account screen's ways in: the keys and providers that reach the account and its logins, each
/// removable, the last way in kept; and "sign out everywhere", which ends every login and token but keeps the keys.
extension AccountFeature {
    /// The account's ways in and live sessions, or nil where the shop has no accounts to read.
    static func readWaysIn(_ accounts: AccountDependencies, _ customer: String) async -> AccountWaysIn? {
        guard let access = accounts.waysIn else { return nil }
        let account = (try? await access.directory.account(id: customer)) ?? nil
        let logins = (try? await access.logins.logins(account: customer, at: accounts.dates.now())) ?? []
        return AccountWaysIn(waysIn: account?.waysIn ?? [], logins: logins)
    }

    /// The rows the account screen lists for `waysIn`, the key in use marked.
    static func wayInRows(_ waysIn: AccountWaysIn?, current: SignedInAccount?) -> [AccountRow] {
        guard let waysIn else { return [] }
        let keys = waysIn.waysIn.map { record in
            let used = record.lastUsedAt.map { Localized("last used \(UTCTime($0).minutes)") } ?? Localized("never used")
            let isThisKey = current?.provider == .sshKey && record.wayIn == .sshKey(fingerprint: current?.userID ?? "")
            return AccountRow(
                kind: .wayIn, id: record.wayIn.kind + " " + record.wayIn.key, title: title(of: record.wayIn),
                detail: isThisKey ? Localized("this key · \(used)") : used, isDefault: false)
        }
        let sessions = waysIn.logins.map { session in
            AccountRow(
                kind: .session, id: session.id, title: session.kind == .browser ? Localized("Browser session") : Localized("Terminal session"),
                detail: Localized("\(session.label) · last used \(UTCTime(session.lastUsedAt).minutes)"), isDefault: false)
        }
        return keys + sessions
    }

    /// A way in as the account screen names it.
    static func title(of wayIn: WayIn) -> Localized {
        switch wayIn {
        case .sshKey(let fingerprint): Localized("SSH key \(shortFingerprint(fingerprint))")
        case .openID(let issuer, _): Localized("Sign-in with \(URLHost.of(issuer))")
        case .sandboxID: Localized("Sandbox ID")
        case .localUser(let name): Localized("Local user \(name)")
        }
    }

    /// Removes the way in or ends the session on `row`, then reads the account again; the last way in is refused.
    static func removeWayIn(_ row: AccountRow, _ state: inout State, _ env: ShopEnvironment) -> Effect {
        let accounts = env.dependencies.accounts
        guard let access = accounts.waysIn else { return .none }
        let customer = state.customerID
        return .run(id: .wallet) { send in
            let notice: Notice
            do {
                if row.kind == .session {
                    let ended = try await access.logins.end(id: row.id, account: customer, at: accounts.dates.now())
                    notice = ended ? Notice(.info, "Ended the session: it is signed out at its next use.") : Notice(.error, "That session had ended.")
                } else {
                    let parts = row.id.split(separator: " ", maxSplits: 1).map(String.init)
                    guard parts.count == 2, let wayIn = WayIn(kind: parts[0], key: parts[1]) else { return }
                    try await access.directory.remove(wayIn, from: customer, at: accounts.dates.now())
                    notice = Notice(.info, "Removed \(row.title): it is refused from its next connection, on every host.")
                }
            } catch AccountChangeError.lastWayIn {
                notice = Notice(.error, "\(row.title) is the account's last way in, so it stays. Add another first.")
            } catch {
                notice = Notice(.error, "\(row.title) could not be removed: \(error)")
            }
            send(.account(.loaded(await read(accounts, customer, notice: notice))))
        }
    }

    /// Ends every session and API token of the account; its keys stay. A session signed in by one of those is signed
    /// out here too.
    static func signOutEverywhere(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        let accounts = env.dependencies.accounts
        guard state.screen.canSignOutEverywhere, let access = accounts.waysIn else { return .none }
        let customer = state.customerID
        let isKey = state.signedIn?.provider == .sshKey
        state.screen.newToken = nil
        return .run(id: .wallet) { send in
            let notice: Notice
            do {
                let now = accounts.dates.now()
                let sessions = try await access.logins.endAll(account: customer, at: now)
                var tokens = 0
                if let repository = accounts.apiTokens?.repository {
                    for token in try await repository.tokens(owner: customer) where !token.isRevoked {
                        if try await repository.revoke(id: token.id, owner: customer, at: now) != nil { tokens += 1 }
                    }
                }
                notice = Notice(
                    .info,
                    "Signed out everywhere: \(sessions) session\(sessions == 1 ? "" : "s") and \(tokens) token\(tokens == 1 ? "" : "s") ended. Your keys stay."
                )
            } catch {
                notice = Notice(.error, "Could not sign out everywhere: \(error)")
            }
            send(.account(.loaded(await read(accounts, customer, notice: notice))))
            if !isKey { send(.account(.delegate(.signOut))) }
        }
    }
}

/// The host of a URL written as text, or the text itself when it has none.
enum URLHost {
    static func of(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        return String(rest.prefix { $0 != "/" && $0 != ":" })
    }
}
