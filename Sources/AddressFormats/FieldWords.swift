import ShopLanguages

/// The words the address data names fields with, in the shopper's language: as a label ("ZIP code") and inside a
/// sentence ("the ZIP code" is "Enter the %@."). The data's labels are a short list, each written here once.
public enum FieldWords {
    /// A field's label as the form shows it; a label the list lacks is shown as the data has it.
    public static func label(_ english: String) -> Localized {
        switch english {
        case "Street": Localized("Street")
        case "City": Localized("City")
        case "District": Localized("District")
        case "Post town": Localized("Post town")
        case "Suburb": Localized("Suburb")
        case "Province": Localized("Province")
        case "State": Localized("State")
        case "Island": Localized("Island")
        case "Department": Localized("Department")
        case "Parish": Localized("Parish")
        case "County": Localized("County")
        case "Oblast": Localized("Oblast")
        case "Emirate": Localized("Emirate")
        case "Area": Localized("Area")
        case "Prefecture": Localized("Prefecture")
        case "Postal code": Localized("Postal code")
        case "ZIP code": Localized("ZIP code")
        case "Eircode": Localized("Eircode")
        case "PIN code": Localized("PIN code")
        default: .verbatim(english)
        }
    }

    /// A region's or postal code's name inside a sentence, which a translation may give its article.
    public static func inSentence(_ english: String) -> Localized {
        // TRANSLATORS: a field's name inside a sentence such as "Enter the %@."; add the article your language needs there.
        switch english {
        case "Province": Localized(context: "in a sentence", "province")
        case "State": Localized(context: "in a sentence", "state")
        case "Island": Localized(context: "in a sentence", "island")
        case "Department": Localized(context: "in a sentence", "department")
        case "Parish": Localized(context: "in a sentence", "parish")
        case "County": Localized(context: "in a sentence", "county")
        case "Oblast": Localized(context: "in a sentence", "oblast")
        case "Emirate": Localized(context: "in a sentence", "emirate")
        case "Area": Localized(context: "in a sentence", "area")
        case "Prefecture": Localized(context: "in a sentence", "prefecture")
        case "District": Localized(context: "in a sentence", "district")
        case "Postal code": Localized(context: "in a sentence", "postal code")
        case "ZIP code": Localized(context: "in a sentence", "ZIP code")
        case "Eircode": Localized(context: "in a sentence", "Eircode")
        case "PIN code": Localized(context: "in a sentence", "PIN code")
        default: .verbatim(english.lowercasedFirst)
        }
    }
}
