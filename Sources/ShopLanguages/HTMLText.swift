/// Words as HTML text or an attribute's value: `&`, `<`, `>`, `"` and `'` written as entities, so nothing a shopper or
/// a merchant typed becomes markup, on the web pages and in the HTML receipts alike.
public enum HTMLText {
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
