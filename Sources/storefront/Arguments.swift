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

    /// `--idle-timeout`.
    static func idleTimeout(_ text: String) throws -> Duration {
        guard let duration = ServeDuration.parse(text) else { throw ValidationError("--idle-timeout \"\(text)\" is not a duration like 90s, 15m or 2h") }
        return duration
    }

    /// `--drain-timeout`.
    static func drainTimeout(_ text: String) throws -> Duration {
        guard let duration = ServeDuration.parse(text) else { throw ValidationError("--drain-timeout \"\(text)\" is not a duration like 10s or 1m") }
        return duration
    }
}

extension ThemePreference: ExpressibleByArgument {}

extension Logger.Level: @retroactive ExpressibleByArgument {}
