import Foundation
import ShopPorts

/// Schema step v24, the same statements on SQLite and PostgreSQL: the accounts' logins, as hashes of their
/// secrets only.
public enum LoginsMigration {
    public static let statements: [String] = [
        """
        CREATE TABLE account_session (
            id TEXT PRIMARY KEY,
            secret_hash TEXT NOT NULL UNIQUE,
            account TEXT NOT NULL,
            kind TEXT NOT NULL,
            label TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            last_used_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL,
            ended_at DOUBLE PRECISION
        )
        """,
        "CREATE INDEX account_session_account ON account_session (account, ended_at)",
    ]

    /// Schema step v25: the `state` of each sign-in with an OpenID Connect provider, hashed, taken once.
    public static let openIDStates: [String] = [
        """
        CREATE TABLE oidc_state (
            state_hash TEXT PRIMARY KEY,
            provider TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            used_at DOUBLE PRECISION
        )
        """,
        "CREATE INDEX oidc_state_created ON oidc_state (created_at)",
    ]

    /// Schema step v33: the browser session a token made in a tab ends with (NULL for a lasting token).
    public static let tokenSessions: [String] = [
        "ALTER TABLE api_token ADD COLUMN session_id TEXT"
    ]
}

/// What a stored session comes to at a time, the same on both databases.
public enum LoginVerdict {
    /// Its row's fields at `now`: ended, expired, or the record it makes (its use to be recorded by the caller).
    public static func of(
        id: String, account: String, kind: String, label: String, createdAt: Double, expiresAt: Double, endedAt: Double?, now: Double,
        lifetime: Double
    ) -> LoginCheck {
        guard endedAt == nil else { return .ended }
        guard expiresAt > now, let kind = LoginKind(rawValue: kind) else { return .expired }
        return .valid(
            LoginRecord(
                id: id, account: account, kind: kind, label: label, createdAt: Date(timeIntervalSince1970: createdAt),
                lastUsedAt: Date(timeIntervalSince1970: now), expiresAt: Date(timeIntervalSince1970: now + lifetime)))
    }
}

/// Schema step v26, the same on SQLite and PostgreSQL: the accounts the operator gave merchant rights.
public enum AdminsMigration {
    public static let statements: [String] = [
        """
        CREATE TABLE account_admin (
            account TEXT PRIMARY KEY,
            added_at DOUBLE PRECISION NOT NULL
        )
        """
    ]
}

/// Schema step v27, the same on SQLite and PostgreSQL: sign-ins a terminal started and a browser finishes, by the
/// hash of the link's handle; the provider's `state` the browser was given; and how it ended, until the terminal takes it.
public enum TerminalSignInsMigration {
    public static let statements: [String] = [
        """
        CREATE TABLE terminal_sign_in (
            handle_hash TEXT PRIMARY KEY,
            provider TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            state_hash TEXT UNIQUE,
            outcome TEXT,
            finished_at DOUBLE PRECISION,
            taken_at DOUBLE PRECISION
        )
        """,
        "CREATE INDEX terminal_sign_in_created ON terminal_sign_in (created_at)",
    ]
}
