import ShopLanguages

/// The language a shopper's client asks for, carried to the session process apart from its locale.
///
/// A session runs under `C.UTF-8` whatever the client sends, so curses and the C library behave alike on every host;
/// the client's `LANG`, `LC_ALL`, `LC_MESSAGES` or `LANGUAGE` (over SSH), or a browser's `Accept-Language`, only
/// chooses the shop's words, as a language tag in `variable`.
public enum SessionLanguage {
    /// The environment variable that carries the session's language tag (`de`, `ja`) to the session process.
    public static let variable = "STOREFRONT_SESSION_LANGUAGE"

    /// The locale variables a client may send.
    public static let names: Set<String> = ["LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"]

    /// Whether a client's environment request is one the shop keeps: a locale variable, short, printable ASCII.
    public static func accepts(name: String, value: String) -> Bool {
        names.contains(name) && value.utf8.count <= 64 && value.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// Sets `variable` to `tag` (a language the shop speaks, with its region: `de-AT`), or clears it.
    public static func pass(_ tag: String?, into environment: inout [String: String]) {
        environment[variable] = tag.flatMap(normalized)
    }

    /// `written` as the shop carries it: a language it speaks and a two-letter region (`de-AT`); nil for anything else.
    public static func normalized(_ written: String) -> String? {
        Language.named(written).map { Language.tag($0, region: Language.region(in: written)) }
    }
}
