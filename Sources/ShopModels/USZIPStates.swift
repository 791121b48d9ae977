/// The US state a ZIP code is in, from its first three digits: how addresses saved before addresses had a state get
/// one when the databases migrate (`v20-regions`, on SQLite and PostgreSQL alike).
public enum USZIPStates {
    /// Ranges of three-digit ZIP prefixes and the ISO 3166-2 code of their state, from USPS's assignment of prefixes.
    public static let ranges: [(ClosedRange<Int>, String)] = [
        (5...5, "US-NY"), (6...7, "US-PR"), (8...8, "US-VI"), (9...9, "US-PR"), (10...27, "US-MA"), (28...29, "US-RI"),
        (30...38, "US-NH"), (39...49, "US-ME"), (55...55, "US-MA"), (50...59, "US-VT"), (60...69, "US-CT"), (70...89, "US-NJ"),
        (100...149, "US-NY"), (150...196, "US-PA"), (197...199, "US-DE"), (200...200, "US-DC"), (201...201, "US-VA"),
        (202...205, "US-DC"), (206...219, "US-MD"), (220...246, "US-VA"), (247...268, "US-WV"), (270...289, "US-NC"),
        (290...299, "US-SC"), (300...319, "US-GA"), (398...399, "US-GA"), (320...349, "US-FL"), (350...369, "US-AL"),
        (370...385, "US-TN"), (386...397, "US-MS"), (400...427, "US-KY"), (430...459, "US-OH"), (460...479, "US-IN"),
        (480...499, "US-MI"), (500...528, "US-IA"), (530...549, "US-WI"), (550...567, "US-MN"), (569...569, "US-DC"),
        (570...577, "US-SD"), (580...588, "US-ND"), (590...599, "US-MT"), (600...629, "US-IL"), (630...658, "US-MO"),
        (660...679, "US-KS"), (680...693, "US-NE"), (700...715, "US-LA"), (716...729, "US-AR"), (730...749, "US-OK"),
        (750...799, "US-TX"), (885...885, "US-TX"), (800...816, "US-CO"), (820...831, "US-WY"), (832...838, "US-ID"),
        (840...847, "US-UT"), (850...865, "US-AZ"), (870...884, "US-NM"), (889...898, "US-NV"), (900...961, "US-CA"),
        (967...968, "US-HI"), (969...969, "US-GU"), (970...979, "US-OR"), (980...994, "US-WA"), (995...999, "US-AK"),
    ]

    /// The SQL both databases run to give saved US addresses without a state the state of their ZIP code.
    public static var migrationSQL: String {
        let cases = ranges.map {
            "WHEN substr(postal_code, 1, 3) BETWEEN '\(digits($0.0.lowerBound))' AND '\(digits($0.0.upperBound))' THEN '\($0.1)'"
        }
        return """
            UPDATE address SET region = CASE \(cases.joined(separator: " ")) ELSE '' END
            WHERE country = 'US' AND region = '' AND length(postal_code) >= 5
            """
    }

    private static func digits(_ prefix: Int) -> String {
        String(repeating: "0", count: 3 - String(prefix).count) + String(prefix)
    }
}
