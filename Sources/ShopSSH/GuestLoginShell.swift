/// The OpenSSH front's guest account has the storefront binary as its login shell (not listed in /etc/shells), so
/// that the account opens nothing but guests' shop sessions: sshd runs the forced command as `SHELL -c COMMAND`, and
/// anything else a local user could reach through the account (`su guest`, `su guest -c …`, `su -s /bin/sh guest`,
/// which su ignores for a shell not in /etc/shells) is refused before any of the shop's files is touched.
public enum GuestLoginShell {
    /// What the program does with how it was called.
    public enum Decision: Equatable, Sendable {
        /// Not called as a shell: the arguments are the command line's own.
        case notAShell
        /// Called as a shell to run the shop's session command: run these arguments.
        case run([String])
        /// Called as a shell for anything else: refused, with why.
        case refused(String)
    }

    /// Decides from `argv0`, the `arguments` after it, this binary's `executable` path, and whether an account of this
    /// user id has this binary as its shell (`isSomeonesShell`, asked only for a bare call).
    ///
    /// - `-c "EXECUTABLE sshd-session …"` (sshd's ForceCommand): the session's arguments;
    /// - `-c` with anything else, or a login shell's `-name`: refused;
    /// - no arguments at all where this binary is an account's shell: refused (a bare `su guest`).
    public static func decide(argv0: String, arguments: [String], executable: String, isSomeonesShell: () -> Bool) -> Decision {
        if arguments.first == "-c" {
            guard arguments.count == 2 else { return .refused(refusal) }
            let words = arguments[1].split(separator: " ").map(String.init)
            guard words.count >= 2, words[0] == executable, words[1] == "sshd-session" else { return .refused(refusal) }
            return .run(Array(words.dropFirst()))
        }
        if argv0.hasPrefix("-") || (arguments.isEmpty && isSomeonesShell()) { return .refused(refusal) }
        return .notAShell
    }

    static let refusal = "this account only opens the shop's guest sessions over SSH; it runs no shell and no other command"
}
