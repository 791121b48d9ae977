import Foundation

/// Picks a `TERM` the host can draw for: the client's own when this host's terminfo has it,
/// else the closest one it does have.
///
/// Over SSH the client's terminal (kitty, Alacritty, WezTerm, Ghostty…) is often newer than the
/// server's terminfo database. Refusing those shoppers would be wrong: they all speak xterm.
public struct TerminalTypes: Sendable {
    /// Where ncurses looks, in its order.
    public let directories: [String]
    private let exists: @Sendable (String) -> Bool

    public init(directories: [String], exists: @escaping @Sendable (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) {
        self.directories = directories
        self.exists = exists
    }

    /// The directories ncurses searches for a process with `environment`, as on Debian.
    public static func host(environment: [String: String]) -> TerminalTypes {
        var directories: [String] = []
        if let own = environment["TERMINFO"], !own.isEmpty { directories.append(own) }
        if let home = environment["HOME"], !home.isEmpty { directories.append(home + "/.terminfo") }
        if let list = environment["TERMINFO_DIRS"] { directories += list.split(separator: ":").map(String.init) }
        directories += ["/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo"]
        return TerminalTypes(directories: directories)
    }

    /// Whether a compiled entry for `name` exists (in the letter or the hex layout).
    public func has(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !name.contains("/"), !name.hasPrefix(".") else { return false }
        let letter = String(first)
        let hex = String(first.value, radix: 16)
        return directories.contains { exists("\($0)/\(letter)/\(name)") || exists("\($0)/\(hex)/\(name)") }
    }

    /// The client's `TERM` if this host knows it, else the richest xterm-like entry it has.
    public func resolve(_ requested: String) -> (term: String, substituted: Bool) {
        if !requested.isEmpty, has(requested) { return (requested, false) }
        let fallback = ["xterm-256color", "xterm", "vt100"].first(where: has) ?? "xterm-256color"
        return (fallback, true)
    }
}
