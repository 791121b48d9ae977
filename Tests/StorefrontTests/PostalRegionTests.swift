import ShopLanguages
import ShopModels
import Testing

/// The region decides the tax, so an address's region must be the one its postal code is in: refused with both named
/// where the shop can tell (a US ZIP code's state, a Canadian postal code's province), and a country whose addresses
/// name no region takes none. One rule for the form, the sheet and the API, which all check an `AddressEntry`.
@Suite("A region agrees with its postal code")
struct PostalRegionTests {
    func entry(_ region: String, _ postal: String, _ country: String) -> AddressEntry {
        AddressEntry(
            name: "Ada", street: "1 Loop Road", city: "Somewhere", region: region, postalCode: postal, country: country, email: "ada@example.com")
    }

    @Test(arguments: [
        ("OR", "95014", "US", "The ZIP code 95014 is in California (CA), not Oregon (OR): enter the one it is in."),
        ("AK", "95014", "US", "The ZIP code 95014 is in California (CA), not Alaska (AK): enter the one it is in."),
        ("ON", "V6B 1A1", "CA", "The postal code V6B 1A1 is in British Columbia (BC), not Ontario (ON): enter the one it is in."),
        ("TX", "SW1A 1AA", "GB", "Addresses in United Kingdom name no region: leave it empty."),
        ("BE", "10115", "DE", "Addresses in Germany name no region: leave it empty."),
    ])
    func aRegionThePostalCodeIsNotInIsRefusedNamingBoth(region: String, postal: String, country: String, words: String) {
        #expect(entry(region, postal, country).problems() == [.region: Localized.lookup(words)])
    }

    @Test(arguments: [
        ("CA", "95014", "US"), ("California", "95014", "US"), ("BC", "V6B 1A1", "CA"), ("NU", "X0A 0H0", "CA"), ("NT", "X1A 2N4", "CA"),
        ("", "SW1A 1AA", "GB"), ("", "10115", "DE"),
    ])
    func aRegionThePostalCodeIsInIsTaken(region: String, postal: String, country: String) {
        #expect(entry(region, postal, country).problems().isEmpty, "\(entry(region, postal, country).problems())")
    }
}
