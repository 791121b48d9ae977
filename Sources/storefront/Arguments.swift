import ArgumentParser
import Logging
import StoreSSH
import StorefrontUI
import TerminalNCurses

/// Typed command-line values: each parses once, with the reason a bad one is refused.
enum Arguments {
    /// `--size COLUMNSxROWS`, up to the largest size the shop draws.
    static func size(_ text: String) throws -> Size {
        guard let parsed = Size(parsing: text) else { throw ValidationError("bad size \"\(text)\": use COLUMNSxROWS, e.g. 80x24") }
        guard parsed.bounded == parsed else { throw ValidationError("bad size \"\(text)\": at most \(Size.maximum), the largest size the shop draws") }
        return parsed
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

extension Logger.Level: @retroactive ExpressibleByArgument {}
