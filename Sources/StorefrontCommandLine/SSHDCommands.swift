import ArgumentParser
import Foundation
import ShopCommands

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
        OpenSSHSession.authorizedKeys(type: type, key: key)
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

    @OptionGroup var guests: GuestLimitOptions

    @Option(
        help: ArgumentHelp(
            "Offer the session to the server listening at this socket (serve --join-socket), to run in its workers; the shop runs in this process when none takes it.",
            valueName: "path"))
    var join: String?

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("Options passed on to storefront run (--data-dir, --payments, …).", valueName: "run options"))
    var runArguments: [String] = []

    func run() throws {
        let arguments = runArguments
        try OpenSSHSession.become(
            runArguments: arguments, guest: guest ? guests.limits : nil, join: join
        ) {
            // The data directory `run` will use, read as `run` reads it: its options, the environment, the config file.
            return try Run.parse(arguments).shop.configuration().dataDirectory(environment: ProcessInfo.processInfo.environment).string
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

    @OptionGroup var guests: GuestLimitOptions

    @Option(
        help: ArgumentHelp("The storefront binary sshd runs: root-owned, in a directory only root can write. Default: this one.", valueName: "path"))
    var binary: String?

    @Option(
        help: ArgumentHelp(
            "Each session is offered first to the server listening at this socket (serve --join-socket) and runs in its workers (docs/openssh.md).",
            valueName: "path"))
    var join: String?

    @Argument(parsing: .postTerminator, help: ArgumentHelp("Options for each session's storefront run.", valueName: "run options"))
    var runArguments: [String] = []

    func validate() throws {
        let problem = OpenSSHSession.setupProblem(
            user: user, guestUser: guestUser, maxGuests: guests.limits.maxGuests, guestsPerAddress: guests.limits.guestsPerAddress, binary: binary,
            join: join,
            runArguments: runArguments)
        if let problem { throw ValidationError(problem) }
    }

    func run() throws {
        OpenSSHSession.printSetup(
            user: user, guestUser: guestUser, maxGuests: guests.limits.maxGuests, guestsPerAddress: guests.limits.guestsPerAddress, binary: binary,
            join: join,
            runArguments: runArguments)
    }
}
