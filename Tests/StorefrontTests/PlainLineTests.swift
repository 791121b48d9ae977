import ShopModels
import ShopPorts
import Testing

/// One rule for a line of text from outside, whichever front it comes through: U+2028 and U+2029 break lines too.
@Suite("Plain lines")
struct PlainLineTests {
    @Test(arguments: ["Pipe\u{2028}Socks", "Pipe\u{2029}Socks", "Pipe\nSocks", "Pipe\u{202E}Socks"])
    func aLineSeparatorIsNoPlainLine(_ text: String) {
        #expect(!MerchantEntry.isPlainLine(text))
        #expect(!APITokenRecord.isValidName(text))
    }
}
