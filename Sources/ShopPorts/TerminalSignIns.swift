import Foundation

/// A sign-in a terminal started with a provider and a browser finishes, by the link the terminal shows
/// (`terminal_sign_in`): the link's handle is kept only as a hash.
///
/// Order of calls: the terminal `file`s the handle's hash → the browser `open`s it, binding the provider's `state` →
/// the provider's callback finds it by `handle(forState:)` and `finish`es it → the terminal, woken, `take`s the outcome once.
public protocol TerminalSignIns: Sendable {
    func file(handleHash: String, provider: String, at date: Date) async throws
    /// The provider of a handle filed within `lifetime` before `date` and not finished, binding `stateHash` to it
    /// (a later open of the same link replaces the binding); nil for a handle unknown, old or finished.
    func open(handleHash: String, stateHash: String, at date: Date, lifetime: TimeInterval) async throws -> String?
    /// The handle a browser's `state` was bound to; nil for a sign-in the browser started for itself.
    func handle(forState stateHash: String) async throws -> String?
    /// Records how the sign-in ended, once: false when it had ended already.
    func finish(handleHash: String, outcome: TerminalSignInOutcome, at date: Date) async throws -> Bool
    /// How the sign-in ended, handed out once; nil while it goes on.
    func take(handleHash: String) async throws -> TerminalSignInOutcome?
}

/// How a terminal's sign-in ended in the browser: who the provider says signed in, or why not.
public enum TerminalSignInOutcome: Codable, Equatable, Sendable {
    case signedIn(issuer: String, subject: String, email: String?, emailVerified: Bool, name: String?)
    case refused(String)

    /// The outcome as the text a column keeps.
    public var encoded: String {
        // A value of plain strings and flags always encodes.
        (try? String(decoding: JSONEncoder().encode(self), as: UTF8.self)) ?? #"{"refused":{"_0":"unreadable"}}"#
    }

    /// The outcome a column kept; a refusal when the text is not one.
    public static func decoded(_ text: String) -> TerminalSignInOutcome {
        (try? JSONDecoder().decode(Self.self, from: Data(text.utf8))) ?? .refused("The sign-in's outcome could not be read.")
    }
}

/// Nudges between processes: a terminal waiting on a sign-in learns at once that the browser finished it, without
/// asking the database again and again. A nudge carries no authority: the waiter reads the outcome from storage.
public protocol SignInWakeups: Sendable {
    /// Listens for `key`, then runs `check` (so a wake sent before listening began is not missed); returns when `check`
    /// says true or a wake for `key` comes. Throws when listening fails or the task is cancelled.
    func wait(for key: String, check: @escaping @Sendable () async -> Bool) async throws
    /// Wakes whoever waits for `key`; nobody waiting is no error.
    func wake(_ key: String) async
}
