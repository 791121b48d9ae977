import ArgumentParser
import Foundation
import ShopSSH

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

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("Options passed on to storefront run (--data-dir, --payments, …).", valueName: "run options"))
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
        guard let path = environment["SSH_USER_AUTH"], let info = try? String(contentsOfFile: path, encoding: .utf8),
              let fingerprint = OpenSSHFront.verifiedKeyFingerprint(authInfo: info)
        else {
            complain("sshd named no verified key (set ExposeAuthInfo yes: storefront sshd-config prints the setup)")
            throw ExitCode(1)
        }
        var sessionEnvironment = environment
        sessionEnvironment[SessionCommand.fingerprintVariable] = fingerprint
        sessionEnvironment["SSH_ORIGINAL_COMMAND"] = nil
        // C.UTF-8 exists on every glibc host; a client's own locale may not.
        sessionEnvironment["LANG"] = "C.UTF-8"
        sessionEnvironment["LC_ALL"] = "C.UTF-8"
        let executable = thisExecutable()
        let arguments = [executable, "run"] + runArguments
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = sessionEnvironment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(executable, argv, envp)
        complain("cannot start the shop: \(String(cString: strerror(errno)))")
        throw ExitCode(1)
    }
}

/// `storefront sshd-config --user NAME`: the sshd_config block that puts the shop behind the system's OpenSSH.
struct SSHDConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sshd-config",
        abstract: "Print the sshd_config block that serves the shop through the system's OpenSSH, for a dedicated user.",
        discussion: "Options after -- are passed to each session's storefront run (--data-dir, --payments stripe, …); keep secrets in the user's config file or environment, not here. docs/openssh.md walks through the setup."
    )

    @Option(help: ArgumentHelp("The system user shoppers connect as (ssh shop@HOST).", valueName: "name"))
    var user = "shop"

    @Option(help: ArgumentHelp("The storefront binary sshd runs: root-owned, in a directory only root can write. Default: this one.", valueName: "path"))
    var binary: String?

    @Argument(parsing: .postTerminator, help: ArgumentHelp("Options for each session's storefront run.", valueName: "run options"))
    var runArguments: [String] = []

    func validate() throws {
        guard user.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }), !user.isEmpty else {
            throw ValidationError("--user must be a system user name (letters, digits, - _ .), got \"\(user)\"")
        }
        if let binary, !binary.hasPrefix("/") { throw ValidationError("--binary must be an absolute path: sshd runs it by its full name") }
        for argument in runArguments where argument.contains(where: { $0.isWhitespace || "\"'\\$`;&|<>".contains($0) }) {
            throw ValidationError("\"\(argument)\": keep session options free of spaces and shell characters (sshd runs the line with the user's shell)")
        }
    }

    func run() throws {
        let executable = binary ?? thisExecutable()
        print(OpenSSHFront.configSnippet(
            user: user, keysCommand: "\(executable) sshd-keys", sessionCommand: ([executable, "sshd-session"] + runArguments).joined(separator: " ")
        ), terminator: "")
    }
}
