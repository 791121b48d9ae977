import ArgumentParser
import Logging
import ShopRecording
import ShopSessions
import StorefrontUI
import SystemPackage
import TerminalNCurses

/// Typed command-line values: each parses once, with the reason a bad one is refused.
enum Arguments {
    /// `--size COLUMNSxROWS`, up to the largest size the shop draws.
    static func size(_ text: String) throws -> Size {
        guard let parsed = Size(parsing: text) else { throw ValidationError("bad size \"\(text)\": use COLUMNSxROWS, e.g. 80x24") }
        guard parsed.bounded == parsed else {
            throw ValidationError("bad size \"\(text)\": at most \(Size.maximum), the largest size the shop draws")
        }
        return parsed
    }

    /// "on" or "off", for a switch given on the command line.
    static func onOff(_ option: String) -> @Sendable (String) throws -> Bool {
        { text in
            switch text.lowercased() {
            case "on": return true
            case "off": return false
            default: throw ValidationError("\(option) must be on or off, not \"\(text)\"")
            }
        }
    }

    /// "400ms" or "2s": a pace between keys, from 10 ms to a minute.
    static let pace: @Sendable (String) throws -> Duration = { text in
        guard let pace = CastRecording.pace(parsing: text) else {
            throw ValidationError("--pace \"\(text)\" is not a duration like 400ms or 1s (10ms to 60s)")
        }
        return pace
    }

    /// A duration option such as `--idle-timeout 15m`; `examples` shows what a good one looks like.
    static func duration(_ option: String, examples: String) -> @Sendable (String) throws -> Duration {
        { text in
            guard let duration = ServeDuration.parse(text) else { throw ValidationError("\(option) \"\(text)\" is not a duration like \(examples)") }
            return duration
        }
    }
}

extension ThemePreference: ExpressibleByArgument {}

// swift-format-ignore: AvoidRetroactiveConformances
extension Logger.Level: @retroactive ExpressibleByArgument {}

// swift-format-ignore: AvoidRetroactiveConformances
extension FilePath: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        guard !argument.isEmpty else { return nil }
        self.init(argument)
    }
}
