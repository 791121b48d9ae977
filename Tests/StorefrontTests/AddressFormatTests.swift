import AddressFormats
import Foundation
import PropertyBased
import Testing

/// Every country's address format, from the generated table.
@Suite("Address formats")
struct AddressFormatTests {
    @Test func everyCountryOfISO3166IsThereWithAFormat() throws {
        #expect(AddressFormats.all.count == 249)
        #expect(AddressFormats.all.map(\.code) == AddressFormats.all.map(\.code).sorted())
        for format in AddressFormats.all {
            #expect(format.fields.contains(.street), "\(format.code) writes a street")
            #expect(Set(format.required).isSubset(of: Set(format.fields)), "\(format.code) requires only fields it writes")
            #expect(format.fields.contains(.region) || format.regions.isEmpty, "\(format.code) lists regions only where an address names one")
            if let pattern = format.postalPattern { #expect((try? Regex(pattern)) != nil, "\(format.code)'s pattern compiles: \(pattern)") }
        }
    }

    @Test func countriesNameTheirFieldsAsTheyDoAndWriteThemInTheirOrder() throws {
        let us = try #require(AddressFormats.format(for: "us"))
        #expect(us.fields == [.street, .city, .region, .postal])
        #expect(us.label(of: .postal) == "ZIP code" && us.label(of: .region) == "State")
        #expect(us.region(named: "tx")?.name == "Texas" && us.region(named: "Texas")?.code == "US-TX")
        let canada = try #require(AddressFormats.format(for: "CA"))
        #expect(canada.label(of: .region) == "Province" && canada.label(of: .postal) == "Postal code")
        #expect(canada.region(named: "ON")?.name == "Ontario")
        let germany = try #require(AddressFormats.format(for: "DE"))
        #expect(germany.fields == [.street, .postal, .city], "the postcode before the city")
        #expect(!germany.fields.contains(.region))
        #expect(AddressFormats.format(for: "GB")?.label(of: .city) == "Post town")
        #expect(AddressFormats.format(for: "IE")?.label(of: .postal) == "Eircode")
        #expect(AddressFormats.format(for: "JP")?.label(of: .region) == "Prefecture")
        #expect(AddressFormats.format(for: "JP")?.region(named: "Tokyo")?.code == "JP-13")
        #expect(AddressFormats.format(for: "XX") == nil)
    }

    @Test func aPostalCodeIsCheckedAgainstItsCountrysPattern() throws {
        let us = try #require(AddressFormats.format(for: "US"))
        #expect(us.postalCodeProblem("95014") == nil && us.postalCodeProblem("22162-1010") == nil)
        #expect(us.postalCodeProblem("9501") == "Enter the ZIP code as United States writes it, such as 95014.")
        #expect(us.postalCodeProblem("") == "Enter the ZIP code.")
        let canada = try #require(AddressFormats.format(for: "CA"))
        #expect(canada.postalCodeProblem("k1a 0b1") == nil, "typed in lower case")
        #expect(canada.postalCodeProblem("D1A 0B1") == "Enter the postal code as Canada writes it, such as H3Z 2Y7.")
        #expect(AddressFormats.format(for: "HK")?.postalCodeProblem("") == nil, "Hong Kong has no postal codes")
    }

    /// Over every country: its own examples are postal codes there, and a code it cannot have is refused in words
    /// that name the country and the field.
    @Test func everyCountrysExamplesPassAndNonsenseIsRefused() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...(AddressFormats.all.count - 1))) { index in
            let format = AddressFormats.all[index]
            for example in format.postalExamples {
                #expect(format.postalCodeProblem(example) == nil, "\(format.code): \(example)")
            }
            if format.postalPattern != nil {
                let problem = format.postalCodeProblem("#!?")
                #expect(
                    problem?.description.contains(format.name) == true
                        && problem?.description.lowercased().contains(format.postalLabel.lowercased()) == true)
            }
        }
    }
}
