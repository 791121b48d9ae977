import ArgumentParser
import Foundation
import ShopBootstrap
import ShopModels
import ShopSSH
import ShopSessions

/// `storefront sshd-keys TYPE KEY`: sshd's `AuthorizedKeysCommand`. Prints the one authorized_keys line that lets the
/// offered key in with `restrict,pty`; prints nothing (so sshd refuses it) for anything that is not a key.
struct SSHDKeys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sshd-keys", abstract: "sshd's AuthorizedKeysCommand for the shop's user (storefront sshd-config prints the setup).",
        shouldDisplay: false
    )

    @Argument(help: ArgumentHelp("The offered key's type (sshd's %t).", valueName: "type"))
    var type: String

    @Argument(help: ArgumentHelp("The offered key, base64 (sshd's %k).", valueName: "key"))
    var key: String

    func run() throws {
        guard let line = OpenSSHFront.authorizedKeysLine(type: type, key: key) else {
            complain("not a key the shop accepts: type \(type.prefix(40))")
            return
        }
        print(line)
    }
}

/// `storefront sshd-session [run's options]`: sshd's `ForceCommand`. Becomes the shop for the key sshd verified, as an
/// embedded `serve` session is; refuses a command, a subsystem (sftp) and a session without a terminal.
struct SSHDSession: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sshd-session", abstract: "sshd's ForceCommand for the shop's user: the shop for the key sshd verified.",
        shouldDisplay: false
    )

    @Flag(help: "A guest's session (sshd's guest user, no key): nothing kept, counted against the guest limits.")
    var guest = false

    @Option(name: .customLong("max-guests"), help: ArgumentHelp("With --guest: guest sessions on this host at once.", valueName: "n"))
    var maxGuests = 16

    @Option(name: .customLong("guests-per-address"), help: ArgumentHelp("With --guest: guest sessions one address may hold at once.", valueName: "n"))
    var guestsPerAddress = 2

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("Options passed on to storefront run (--data-dir, --payments, …).", valueName: "run options"))
    var runArguments: [String] = []

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        if let asked = environment["SSH_ORIGINAL_COMMAND"], !asked.isEmpty {
            complain("runs no commands: connect with ssh -t and no command")
            throw ExitCode(1)
        }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            complain("needs an interactive terminal: use ssh -t")
            throw ExitCode(1)
        }
        var sessionEnvironment = environment
        if guest {
            try takeGuestSlot(environment: environment)
            sessionEnvironment[SessionCommand.guestVariable] = SessionCommand.newGuestID()
            sessionEnvironment[SessionCommand.fingerprintVariable] = nil
        } else {
            guard let path = environment["SSH_USER_AUTH"], let info = try? String(contentsOfFile: path, encoding: .utf8),
                let fingerprint = OpenSSHFront.verifiedKeyFingerprint(authInfo: info)
            else {
                complain("sshd named no verified key (set ExposeAuthInfo yes: storefront sshd-config prints the setup)")
                throw ExitCode(1)
            }
            sessionEnvironment[SessionCommand.fingerprintVariable] = fingerprint
            sessionEnvironment[SessionCommand.guestVariable] = nil
        }
        sessionEnvironment["SSH_ORIGINAL_COMMAND"] = nil
        SessionCommand.setLocale(&sessionEnvironment)
        let executable = thisExecutable()
        let arguments = [executable, "run"] + runArguments
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = sessionEnvironment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(executable, argv, envp)
        complain("cannot start the shop: \(String(cString: strerror(errno)))")
        throw ExitCode(1)
    }
}

extension SSHDSession {
    /// Takes this guest's slots in the data directory's `guest-slots`, held by the shop this process becomes; refuses
    /// past the limits with the words `serve` uses, exit 1.
    private func takeGuestSlot(environment: [String: String]) throws {
        // The data directory `run` will use, read as `run` reads it: its options, the environment, the config file.
        let dataDirectory = try Run.parse(runArguments).shop.configuration(environment: environment).dataDirectory(environment: environment).string
        let directory = dataDirectory + "/guest-slots"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // SSH_CONNECTION is "client-address client-port server-address server-port", set by sshd.
        let address = environment["SSH_CONNECTION"]?.split(separator: " ").first.map(String.init) ?? "unknown"
        switch GuestSlots(directory: directory, maxGuests: maxGuests, guestsPerAddress: guestsPerAddress).take(from: address) {
        case .success: return
        case .failure(let refusal):
            complain("\(refusal)")
            throw ExitCode(1)
        }
    }
}

/// `storefront sshd-config --user NAME`: the sshd_config block that puts the shop behind the system's OpenSSH.
struct SSHDConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sshd-config",
        abstract: "Print the sshd_config block that serves the shop through the system's OpenSSH, for a dedicated user.",
        discussion:
            "Options after -- are passed to each session's storefront run (--data-dir, --payments stripe, …); keep secrets in the user's config file or environment, not here. docs/openssh.md walks through the setup."
    )

    @Option(help: ArgumentHelp("The system user shoppers connect as (ssh shop@HOST).", valueName: "name"))
    var user = "shop"

    @Option(
        name: .customLong("guest-user"),
        help: ArgumentHelp(
            "Also a block for this system user (same UID as --user, empty password): no key, no prompt, a guest's session. docs/openssh.md.",
            valueName: "name"))
    var guestUser: String?

    @Option(
        name: .customLong("max-guests"), help: ArgumentHelp("With --guest-user: guest sessions on this host at once (default 16).", valueName: "n"))
    var maxGuests = 16

    @Option(
        name: .customLong("guests-per-address"),
        help: ArgumentHelp("With --guest-user: guest sessions one address may hold (default 2).", valueName: "n"))
    var guestsPerAddress = 2

    @Option(
        help: ArgumentHelp("The storefront binary sshd runs: root-owned, in a directory only root can write. Default: this one.", valueName: "path"))
    var binary: String?

    @Argument(parsing: .postTerminator, help: ArgumentHelp("Options for each session's storefront run.", valueName: "run options"))
    var runArguments: [String] = []

    func validate() throws {
        for (flag, name) in [("--user", user), ("--guest-user", guestUser ?? "guest")]
        where name.isEmpty || !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) {
            throw ValidationError("\(flag) must be a system user name (letters, digits, - _ .), got \"\(name)\"")
        }
        if guestUser == user { throw ValidationError("--guest-user must be another user than --user: the guest logs in with no key") }
        guard (1...10_000).contains(maxGuests), (1...1_000).contains(guestsPerAddress) else {
            throw ValidationError("--max-guests must be 1 to 10000 and --guests-per-address 1 to 1000")
        }
        if let binary, !binary.hasPrefix("/") { throw ValidationError("--binary must be an absolute path: sshd runs it by its full name") }
        // The path lands in ForceCommand and AuthorizedKeysCommand lines: a newline would add sshd directives, a shell
        // character would run through the shell, a parenthesis breaks every login.
        if let binary,
            binary.contains(where: { $0.isWhitespace || $0.isNewline || "\"'\\$`;&|<>()*?[]{}#~%!".contains($0) })
                || binary.unicodeScalars.contains(where: \.isUnsafeForTerminal)
        {
            throw ValidationError(
                "--binary must be a plain path (letters, digits, / . - _), got \"\(binary.debugDescription.dropFirst().dropLast())\"")
        }
        for argument in runArguments
        where argument.contains(where: { $0.isWhitespace || $0.isNewline || "\"'\\$`;&|<>()".contains($0) })
            || argument.unicodeScalars.contains(where: \.isUnsafeForTerminal)
        {
            throw ValidationError(
                "\"\(argument)\": keep session options free of spaces and shell characters (sshd runs the line with the user's shell)")
        }
    }

    func run() throws {
        let executable = binary ?? thisExecutable()
        print(
            OpenSSHFront.configSnippet(
                user: user, keysCommand: "\(executable) sshd-keys",
                sessionCommand: ([executable, "sshd-session"] + runArguments).joined(separator: " ")
            ), terminator: "")
        if let guestUser {
            let limits = ["--guest", "--max-guests", String(maxGuests), "--guests-per-address", String(guestsPerAddress)]
            print(
                OpenSSHFront.guestConfigSnippet(
                    user: guestUser, sessionCommand: ([executable, "sshd-session"] + limits + runArguments).joined(separator: " ")), terminator: "")
        }
    }
}
