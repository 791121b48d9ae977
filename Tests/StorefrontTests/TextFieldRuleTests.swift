import ShopModels
import Testing

/// One rule for the text a shopper or merchant types, whichever front it came through (the SSH shop's form, the API,
/// a command): nothing a terminal or a mail header would act on gets stored.
@Suite("Text field rules")
struct TextFieldRuleTests {
    static let good = AddressEntry(
        name: "Ada Lovelace", street: "1 Loop Road", city: "Cupertino", region: "CA", postalCode: "95014", country: "US", email: "ada@example.com")

    @Test(arguments: [AddressField.name, .street, .street2, .city, .region, .phone])
    func anEscapeOrABellInAnAddressFieldIsRefused(field: AddressField) {
        var entry = Self.good
        let attack = "x\u{1B}]52;c;aGk=\u{07}y"
        switch field {
        case .name: entry.name = attack
        case .street: entry.street = attack
        case .street2: entry.street2 = attack
        case .city: entry.city = attack
        case .region: entry.region = attack
        case .phone: entry.phone = "+1 555 0100\u{1B}]0;pwned\u{07}"
        default: Issue.record("not tried")
        }
        #expect(entry.problems()[field] != nil, "\(field) with an escape is refused")
        #expect(entry.contact(id: "a") == nil)
        #expect(Self.good.problems().isEmpty)
    }

    @Test(arguments: ["e\u{301}ve@example.com", "eve@exa\u{200D}mple.com", "eve\u{200B}@example.com", "eve@example.com\u{FEFF}"])
    func anEmailWithACombiningMarkOrAnInvisibleCharacterIsRefusedWhereItIsTyped(_ email: String) {
        #expect(Contact.emailProblem(email) == "An email address has no combining marks or invisible characters.")
        #expect(Contact.emailProblem("\u{E9}ve@example.com") == nil, "a precomposed letter is a letter")
    }

    @Test(arguments: [
        "https://track.example/1Z\r\nX-Evil: 1", "https://track.example/\u{1B}]0;x\u{07}", "https://track.example/a b", "https://t.example/\u{07}",
    ])
    func aTrackingAddressWithAControlCharacterIsRefused(_ url: String) {
        #expect(!MerchantEntry.isWebAddress(url))
        #expect(MerchantEntry.isWebAddress("https://track.example/1Z999?x=1"))
    }
}
