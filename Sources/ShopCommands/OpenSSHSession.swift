import Foundation
import ShopLanguages
import ShopModels
import ShopSSH
import ShopSessions
import StorefrontUI

/// `storefront sshd-keys` and `sshd-session`: the shop behind the system's OpenSSH.
public enum OpenSSHSession {
    /// sshd's `AuthorizedKeysCommand`: the one authorized_keys line that lets the offered key in, or nothing (so sshd
    /// refuses it) for anything that is not a key.
    public static func authorizedKeys(type: String, key: String) {
        guard let line = OpenSSHFront.authorizedKeysLine(type: type, key: key) else {
            complain("not a key the shop accepts: type \(type.prefix(40))")
            return
        }
        print(line)
    }

    /// sshd's `ForceCommand`: becomes `storefront run runArguments` for the key sshd verified (or a guest, whose slot in
    /// `dataDirectory()`'s `guest-slots` is taken first); refuses a command, a subsystem and a session without a
    /// terminal, exit 1.
    ///
    /// With `join`, the session is first offered to the server listening there (`serve --join-socket`), which runs it
    /// in one of its workers while this process waits; it becomes the shop itself only when nothing takes it.
    public static func become(
        runArguments: [String], guest: GuestLimits?, join: String? = nil, dataDirectory: () throws -> String
    ) throws -> Never {
        let environment = ProcessInfo.processInfo.environment
        if let asked = environment["SSH_ORIGINAL_COMMAND"], !asked.isEmpty {
            complain("runs no commands: connect with ssh -t and no command")
            throw CommandExit(1)
        }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            complain("needs an interactive terminal: use ssh -t")
            throw CommandExit(1)
        }
        var sessionEnvironment = environment
        if let guest {
            try takeGuestSlot(guest, in: dataDirectory() + "/guest-slots", environment: environment)
            sessionEnvironment[SessionCommand.guestVariable] = SessionCommand.newGuestID()
            sessionEnvironment[SessionCommand.fingerprintVariable] = nil
        } else {
            guard let path = environment["SSH_USER_AUTH"], let info = try? String(contentsOfFile: path, encoding: .utf8),
                let fingerprint = OpenSSHFront.verifiedKeyFingerprint(authInfo: info)
            else {
                complain("sshd named no verified key (set ExposeAuthInfo yes: storefront sshd-config prints the setup)")
                throw CommandExit(1)
            }
            sessionEnvironment[SessionCommand.fingerprintVariable] = fingerprint
            sessionEnvironment[SessionCommand.guestVariable] = nil
        }
        sessionEnvironment["SSH_ORIGINAL_COMMAND"] = nil
        // The client's locale (sshd's AcceptEnv) picks the shop's words; the shop itself runs under C.UTF-8.
        let asked = Language.localeTag(fromEnvironment: environment.filter { SessionLanguage.accepts(name: $0.key, value: $0.value) })
        SessionLanguage.pass(asked, into: &sessionEnvironment)
        SessionCommand.setLocale(&sessionEnvironment)
        let executable = thisExecutable()
        if let join { becomeJoiner(at: join, executable: executable, runArguments: runArguments, environment: sessionEnvironment) }
        let argv = ([executable, "run"] + runArguments).map { strdup($0) } + [nil]
        let envp = sessionEnvironment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(executable, argv, envp)
        complain("cannot start the shop: \(String(cString: strerror(errno)))")
        throw CommandExit(1)
    }

    /// Becomes `storefront-joiner` (beside this binary), which offers the session to the server at `path` and waits
    /// while it runs there, or becomes `storefront run` itself when nothing takes it; returns only when the joiner
    /// cannot be started, so the caller runs the shop here.
    private static func becomeJoiner(at path: String, executable: String, runArguments: [String], environment: [String: String]) {
        let joiner = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(joinerName).path
        let argv = ([joiner, path, executable, "run"] + runArguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(joiner, argv, envp)
    }

    /// The joiner's file name, installed beside `storefront`.
    static let joinerName = "storefront-joiner"

    /// How many guests the host and one address may have at once.
    public struct GuestLimits: Sendable {
        public var maxGuests: Int
        public var guestsPerAddress: Int
        public init(maxGuests: Int, guestsPerAddress: Int) {
            self.maxGuests = maxGuests
            self.guestsPerAddress = guestsPerAddress
        }
    }

    /// Takes this guest's slot in `directory`, held by the shop this process becomes; refuses past the limits with
    /// the words `serve` uses, exit 1.
    private static func takeGuestSlot(_ limits: GuestLimits, in directory: String, environment: [String: String]) throws {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // SSH_CONNECTION is "client-address client-port server-address server-port", set by sshd.
        let address = environment["SSH_CONNECTION"]?.split(separator: " ").first.map(String.init) ?? "unknown"
        switch GuestSlots(directory: directory, maxGuests: limits.maxGuests, guestsPerAddress: limits.guestsPerAddress).take(from: address) {
        case .success: return
        case .failure(let refusal):
            complain("\(refusal)")
            throw CommandExit(1)
        }
    }
}

extension OpenSSHSession {
    /// What is wrong with an `sshd-config` request, if anything: names that are not system users, limits out of range, a
    /// binary or session options that would inject sshd directives or shell syntax.
    public static func setupProblem(
        user: String, guestUser: String?, maxGuests: Int, guestsPerAddress: Int, binary: String?, join: String? = nil, runArguments: [String]
    ) -> String? {
        for (flag, name) in [("--user", user), ("--guest-user", guestUser ?? "guest")]
        where name.isEmpty || !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) {
            return "\(flag) must be a system user name (letters, digits, - _ .), got \"\(name)\""
        }
        if guestUser == user { return "--guest-user must be another user than --user: the guest logs in with no key" }
        guard (1...10_000).contains(maxGuests), (1...1_000).contains(guestsPerAddress) else {
            return "--max-guests must be 1 to 10000 and --guests-per-address 1 to 1000"
        }
        for (flag, path) in [("--binary", binary), ("--join", join)] {
            if let path, let problem = plainPathProblem(path, flag: flag) { return problem }
        }
        for argument in runArguments
        where argument.contains(where: { $0.isWhitespace || $0.isNewline || "\"'\\$`;&|<>()".contains($0) })
            || argument.unicodeScalars.contains(where: \.isUnsafeForTerminal)
        {
            return "\"\(argument)\": keep session options free of spaces and shell characters (sshd runs the line with the user's shell)"
        }
        return nil
    }

    /// What is wrong with `path` as `flag`, if anything. The path lands in ForceCommand and AuthorizedKeysCommand lines:
    /// a newline would add sshd directives, a shell character would run through the shell, a parenthesis breaks every
    /// login; sshd runs it by its full name.
    private static func plainPathProblem(_ path: String, flag: String) -> String? {
        guard path.hasPrefix("/") else { return "\(flag) must be an absolute path: sshd runs it by its full name" }
        if path.contains(where: { $0.isWhitespace || $0.isNewline || "\"'\\$`;&|<>()*?[]{}#~%!".contains($0) })
            || path.unicodeScalars.contains(where: \.isUnsafeForTerminal)
        {
            return "\(flag) must be a plain path (letters, digits, / . - _), got \"\(path.debugDescription.dropFirst().dropLast())\""
        }
        return nil
    }

    /// Prints the sshd_config block for `user`, and for `guestUser` when given, running `binary` (default: this one);
    /// with `join`, each session is offered to the server listening there first.
    public static func printSetup(
        user: String, guestUser: String?, maxGuests: Int, guestsPerAddress: Int, binary: String?, join: String? = nil, runArguments: [String]
    ) {
        let executable = binary ?? thisExecutable()
        let session = [executable, "sshd-session"] + (join.map { ["--join", $0] } ?? [])
        print(
            OpenSSHFront.configSnippet(
                user: user, keysCommand: "\(executable) sshd-keys", sessionCommand: (session + runArguments).joined(separator: " ")),
            terminator: "")
        if let guestUser {
            let limits = ["--guest", "--max-guests", String(maxGuests), "--guests-per-address", String(guestsPerAddress)]
            print(
                OpenSSHFront.guestConfigSnippet(user: guestUser, sessionCommand: (session + limits + runArguments).joined(separator: " ")),
                terminator: "")
        }
    }
}

extension OpenSSHSession {
    /// The arguments a guest account's login shell call stands for (sshd's `-c "BINARY sshd-session …"`), or nil when
    /// this program was not called as a shell; any other call as a shell is told and exits 1 (`GuestLoginShell`).
    public static func argumentsCalledAsShell() -> [String]? {
        let executable = thisExecutable()
        switch GuestLoginShell.decide(
            argv0: CommandLine.arguments[0], arguments: Array(CommandLine.arguments.dropFirst()), executable: executable,
            isSomeonesShell: { isAccountShell(executable) })
        {
        case .notAShell: return nil
        case .run(let session): return session
        case .refused(let why):
            complain(why)
            exit(1)
        }
    }
}

extension OpenSSHSession {
    /// What is wrong with `serve --openssh-front` (the way in told to guests), if anything.
    public static func frontProblem(_ text: String) -> String? {
        text.count > 200 || text.unicodeScalars.contains(where: \.isUnsafeForTerminal)
            ? "--openssh-front must be one line of printable text, at most 200 characters" : nil
    }
}
