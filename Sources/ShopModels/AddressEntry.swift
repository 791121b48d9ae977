import AddressFormats
import ShopLanguages

/// The fields of the address form, which are also the shipping contact's fields on the sheet.
public enum AddressField: String, Hashable, Sendable, CaseIterable {
    case name, street, street2, city, region, postalCode, country, email, phone

    /// The payment sheet's contact field this form field belongs to.
    public var contactField: ContactField {
        switch self {
        case .name: .name
        case .street, .street2, .city, .region, .postalCode, .country: .postalAddress
        case .email: .email
        case .phone: .phone
        }
    }
}

/// What the shopper typed into the address form, before validation.
public struct AddressEntry: Hashable, Sendable {
    public var name: String
    public var street: String
    public var street2: String
    public var city: String
    /// The region as typed: its code ("TX", "US-TX") or its name ("Texas").
    public var region: String
    public var postalCode: String
    public var country: String
    public var email: String
    public var phone: String

    public init(
        name: String = "", street: String = "", street2: String = "", city: String = "", region: String = "", postalCode: String = "",
        country: String = "", email: String = "", phone: String = ""
    ) {
        self.name = name
        self.street = street
        self.street2 = street2
        self.city = city
        self.region = region
        self.postalCode = postalCode
        self.country = country
        self.email = email
        self.phone = phone
    }

    public init(_ contact: Contact) {
        self.init(
            name: contact.name, street: contact.address.street, street2: contact.address.street2, city: contact.address.city,
            region: contact.address.region, postalCode: contact.address.postalCode, country: contact.address.countryCode, email: contact.email,
            phone: contact.phone)
    }

    /// Every field's problem, by field; empty when the address can be used.
    public func problems() -> [AddressField: Localized] {
        var errors: [AddressField: Localized] = [:]
        let name = name.trimming(" ")
        let street = street.trimming(" ")
        let city = city.trimming(" ")
        if name.isEmpty {
            errors[.name] = Localized("Enter the recipient's name.")
        } else if name.count > 80 {
            errors[.name] = Localized("The name is too long (at most 80 characters).")
        }
        if street.isEmpty {
            errors[.street] = Localized("Enter the street and number.")
        } else if street.count > 120 {
            errors[.street] = Localized("The street is too long (at most 120 characters).")
        }
        if street2.trimming(" ").count > 120 {
            errors[.street2] = Localized("The second street line is too long (at most 120 characters).")
        }
        if city.isEmpty {
            errors[.city] = Localized("Enter the city.")
        } else if city.count > 80 {
            errors[.city] = Localized("The city is too long (at most 80 characters).")
        }
        // The same rule whichever front the text came through: nothing a terminal or a mail header would act on.
        for (field, text) in [
            (AddressField.name, name), (.street, street), (.street2, street2), (.city, city), (.region, region), (.postalCode, postalCode),
            (.country, country), (.phone, phone),
        ]
        where text.unicodeScalars.contains(where: \.isUnsafeForTerminal) {
            errors[field] = Localized("Letters, digits, spaces and punctuation only: no control characters.")
        }
        // The country's own rules where the text names one of ISO 3166's, by its code or its name in any language the
        // shop speaks (its postal code's pattern and name).
        let format = AddressFormats.country(named: country)
        if format == nil { errors[.country] = Self.countryProblem(country) }
        if let problem = format.map({ $0.postalCodeProblem(postalCode) }) ?? PostalAddress.postalCodeProblem(postalCode) {
            errors[.postalCode] = problem
        }
        if let format, errors[.region] == nil, let problem = format.regionProblem(region) { errors[.region] = problem }
        // The region decides the tax, so it must be the one the postal code is in, not whichever the buyer typed.
        if let format, errors[.region] == nil, errors[.postalCode] == nil,
            let problem = PostalRegions.mismatch(country: format, region: regionCode, postalCode: postalCode)
        {
            errors[.region] = problem
        }
        if let problem = Contact.emailProblem(email) { errors[.email] = problem }
        if let problem = Contact.phoneProblem(phone, country: countryCode) { errors[.phone] = problem }
        return errors
    }

    /// Why `typed` names no country, with the countries whose names start with it where there are a few.
    public static func countryProblem(_ typed: String) -> Localized {
        let text = typed.trimming(" ")
        guard !text.isEmpty else { return Localized("Enter the country, by its name or its two-letter code (e.g. Germany or DE).") }
        let starting = AddressFormats.countries(startingWith: text).map(\.name)
        if (1...3).contains(starting.count) {
            return Localized("No country is called \u{201C}\(text)\u{201D}: did you mean \(starting.joined(separator: ", "))?")
        }
        return Localized("No country is called \u{201C}\(text)\u{201D}: type its name or its two-letter code (e.g. Germany or DE).")
    }

    /// The contact this entry describes, trimmed; nil while any field has a problem.
    public func contact(id: String) -> Contact? {
        guard problems().isEmpty else { return nil }
        return Contact(
            id: id, name: name.trimming(" "), email: email.trimming(" "), phone: phone.trimming(" "),
            address: PostalAddress(
                street: street.trimming(" "), street2: street2.trimming(" "), city: city.trimming(" "), region: regionCode,
                postalCode: postalCode.trimming(" ").uppercased(), countryCode: countryCode)
        )
    }
}

extension AddressEntry {
    /// The country and region as they would be stored, the rest left empty: where the shop's regions are checked
    /// before the other fields are right, so every problem is told at once.
    public var destination: PostalAddress {
        PostalAddress(street: "", city: "", region: regionCode, postalCode: "", countryCode: countryCode)
    }

    /// The country as stored: the ISO 3166-1 code of the country typed by its code or name, or the text in capitals
    /// where it names none.
    public var countryCode: String { AddressFormats.country(named: country)?.code ?? country.trimming(" ").uppercased() }

    /// The region as stored: the ISO 3166-2 code of the subdivision typed, or the text where the country has no table.
    var regionCode: String {
        let typed = region.trimming(" ")
        return AddressFormats.country(named: country)?.region(named: typed)?.code ?? typed
    }
}

extension PostalAddress {
    /// Why `code` is not a postal code of any country, or nil when it could be one: where the country is not known (a
    /// card's billing code, an address whose country is not one of ISO 3166's). A known country's own pattern is
    /// `AddressFormat.postalCodeProblem`.
    public static func postalCodeProblem(_ code: String) -> Localized? {
        let code = code.trimming(" ")
        if code.isEmpty { return Localized("Enter the postal code.") }
        let allowed = code.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == " " || $0 == "-" }
        let significant = code.filter { $0 != " " && $0 != "-" }.count
        return allowed && (3...10).contains(significant) ? nil : Localized("A postal code has 3 to 10 letters or digits.")
    }
}

extension Contact {
    /// Why `email` is not an address mail can reach, or nil.
    public static func emailProblem(_ email: String) -> Localized? {
        let email = email.trimming(" ")
        if email.isEmpty { return Localized("Enter an email address for the receipt.") }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.contains(" ")
        else { return Localized("Enter a valid email address, like name@example.com.") }
        // The address goes into a mail's To header: nothing in it may end the header or name another recipient. Marks that
        // join or change the letter before them (e + U+0301, U+200D) look like another address and fail at the mail server.
        let invisible: Set<Unicode.GeneralCategory> = [
            .nonspacingMark, .spacingMark, .enclosingMark, .format, .control, .surrogate, .privateUse, .unassigned,
        ]
        guard !email.unicodeScalars.contains(where: { invisible.contains($0.properties.generalCategory) }) else {
            return Localized("An email address has no combining marks or invisible characters.")
        }
        let localSymbols = Set("!#$%&'*+/=?^_`{|}~.-")
        guard parts[0].allSatisfy({ $0.isLetter || $0.isNumber || localSymbols.contains($0) }),
            parts[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }), email.count <= 254
        else { return Localized("An email address has no spaces, commas, quotes, brackets or angle brackets.") }
        return nil
    }

    /// Why `phone` is not a phone number in international form (E.164: "+", the country code, then the number), or nil;
    /// the phone is optional. A carrier or a customs form abroad needs the country code. The example is `country`'s.
    public static func phoneProblem(_ phone: String, country: String = "US") -> Localized? {
        let phone = phone.trimming(" ")
        guard !phone.isEmpty else { return nil }
        let allowed = phone.dropFirst().allSatisfy { $0.isASCIIDigit || " -().".contains($0) }
        let digits = phone.filter(\.isASCIIDigit).count
        return phone.hasPrefix("+") && allowed && (7...15).contains(digits)
            ? nil : Localized("Enter the phone in international form: + and the country code, such as \(phoneExample(country: country)).")
    }

    /// A phone number as `country` writes one in international form (a made-up one, in its drama or test range), so a
    /// buyer in Berlin is not shown +1; a country without one here gets "+ country code and number".
    public static func phoneExample(country: String) -> String {
        let examples: [String: String] = [
            "US": "+1 512 555 0100", "CA": "+1 416 555 0100", "DE": "+49 30 12345678", "AT": "+43 1 2345678", "CH": "+41 44 123 45 67",
            "GB": "+44 20 7946 0958", "IE": "+353 1 234 5678", "FR": "+33 1 23 45 67 89", "NL": "+31 20 123 4567", "BE": "+32 2 123 45 67",
            "ES": "+34 912 345 678", "IT": "+39 06 1234 5678", "PT": "+351 21 123 4567", "SE": "+46 8 123 456 78", "DK": "+45 32 12 34 56",
            "NO": "+47 22 12 34 56", "FI": "+358 9 1234 5678", "PL": "+48 22 123 45 67", "JP": "+81 3 1234 5678", "AU": "+61 2 9876 5432",
            "NZ": "+64 9 123 4567", "MX": "+52 55 1234 5678", "BR": "+55 11 2345 6789", "IN": "+91 11 2345 6789",
        ]
        return examples[country.trimming(" ").uppercased()] ?? Localized("+ the country code and the number").description
    }
}
