import AddressFormats
import Foundation
import ShopLanguages

/// The region a postal code is in, where the code tells it: a US ZIP code by its first three digits (`USZIPStates`),
/// a Canadian postal code by its first letter. An address whose region is another is refused, with both named, on
/// every front (the region decides the tax).
public enum PostalRegions {
    /// The province or territory of a Canadian postal code's first letter (Canada Post's forward sortation areas);
    /// X is shared by the Northwest Territories and Nunavut.
    static let canadianLetters: [Character: [String]] = [
        "A": ["CA-NL"], "B": ["CA-NS"], "C": ["CA-PE"], "E": ["CA-NB"], "G": ["CA-QC"], "H": ["CA-QC"], "J": ["CA-QC"],
        "K": ["CA-ON"], "L": ["CA-ON"], "M": ["CA-ON"], "N": ["CA-ON"], "P": ["CA-ON"], "R": ["CA-MB"], "S": ["CA-SK"],
        "T": ["CA-AB"], "V": ["CA-BC"], "X": ["CA-NT", "CA-NU"], "Y": ["CA-YT"],
    ]

    /// The ISO 3166-2 codes `postalCode` may be in, for `country`; nil where the shop cannot tell.
    public static func regions(country: String, postalCode: String) -> [String]? {
        let code = postalCode.trimmingCharacters(in: .whitespaces).uppercased()
        switch country {
        case "US":
            guard code.count >= 5, let prefix = Int(code.prefix(3)) else { return nil }
            return USZIPStates.ranges.first { $0.0.contains(prefix) }.map { [$0.1] }
        case "CA":
            return code.first.flatMap { canadianLetters[$0] }
        default:
            return nil
        }
    }

    /// Why `region` (a stored ISO code) is not where `postalCode` is, naming both; nil when they agree or the shop
    /// cannot tell.
    public static func mismatch(country format: AddressFormat, region: String, postalCode: String) -> Localized? {
        guard !region.isEmpty, let expected = regions(country: format.code, postalCode: postalCode), !expected.contains(region) else {
            return nil
        }
        func named(_ code: String) -> String { format.regions.first { $0.code == code }.map { "\($0.name) (\($0.key))" } ?? code }
        let postal = postalCode.trimmingCharacters(in: .whitespaces).uppercased()
        let label = FieldWords.inSentence(format.postalLabel)
        let places =
            expected.count == 2 ? Localized("\(named(expected[0])) or \(named(expected[1]))") : .verbatim(expected.map(named).joined(separator: ", "))
        return Localized("The \(label) \(postal) is in \(places), not \(named(region)): enter the one it is in.")
    }
}
