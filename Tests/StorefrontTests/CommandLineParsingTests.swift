import ArgumentParser
import ShopCommands
import StorefrontCommandLine
import Testing

/// The command line parsed in-process, as the binary parses it before anything runs: refusals, their exit status and
/// words, and the help every command prints.
@Suite("The command line, parsed")
struct CommandLineParsingTests {
    /// What `storefront ARGUMENTS` answers before it runs anything: the status and the message it would print.
    func parse(_ arguments: [String]) -> (status: Int32, message: String) {
        do {
            _ = try Storefront.parseAsRoot(arguments)
            return (0, "")
        } catch {
            return (Storefront.exitCode(for: error).rawValue, Storefront.fullMessage(for: error))
        }
    }

    /// The help `storefront COMMAND… --help` prints, on one line per entry (wide enough not to wrap).
    func help(_ path: [String]) throws -> String {
        var command: any ParsableCommand.Type = Storefront.self
        for name in path {
            command = try #require(command.configuration.subcommands.first { $0._commandName == name }, "no command \(path)")
        }
        return Storefront.helpMessage(for: command, columns: 1_000)
    }

    /// Every flag the settings table names is one some command takes: a flag renamed in one place only is caught.
    @Test func everyFlagTheTableNamesIsTaken() throws {
        var helps = ""
        for command in [["run"], ["serve"], ["web"], ["api"], ["up"], ["webhooks", "listen"], ["admin"]] {
            helps += try help(command) + "\n"
        }
        let missing = ServiceKey.all.compactMap(\.flag).filter { !helps.contains("--\($0) ") && !helps.contains("--\($0)\n") }
        #expect(missing == [], "flags in ServiceKey.all that no command takes")
    }

    /// A flag is refused in the words `config check` uses for the file's value, with the table's bounds, and its help
    /// gives the table's default.
    @Test func aFlagIsRefusedInTheTablesWordsAndItsHelpGivesTheDefault() throws {
        let sessions = parse(["serve", "--max-sessions", "0"])
        #expect(sessions.status == 64 && sessions.message.contains("--max-sessions must be a whole number from 1 to 10000, got \"0\""), "\(sessions)")
        // A shop setting's flag is refused by the setter the file's value goes through, with its bound.
        let latency = parse(["api", "--sandbox-latency-ms", "99999"])
        #expect(
            latency.status == 64 && latency.message.contains("sandbox-latency-ms must be a whole number of milliseconds from 0 to 60000"),
            "\(latency)")
        let serve = try help(["serve"])
        #expect(serve.contains("Sessions open at once; more are told the shop is full. Default: 64."), "\(serve)")
    }

    @Test func headlessRefusesUnknownKeysAndBadSizes() {
        let key = parse(["headless", "--keys", "enter,warp"])
        #expect(key.status == 64 && key.message.contains("unknown key \"warp\" at position 2"), "\(key)")
        let size = parse(["headless", "--size", "80by24"])
        #expect(size.status == 64 && size.message.contains("bad size \"80by24\""), "\(size)")
    }
}
