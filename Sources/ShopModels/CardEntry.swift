import ShopLanguages

/// The fields of the add-card form.
public enum CardField: String, Hashable, Sendable, CaseIterable {
    case number, expiry, securityCode, name, postalCode
}

/// What the shopper typed into the add-card form, before validation.
public struct CardEntry: Hashable, Sendable {
    public var number: String
    public var expiry: String
    public var securityCode: String
    public var name: String
    public var postalCode: String

    public init(number: String = "", expiry: String = "", securityCode: String = "", name: String = "", postalCode: String = "") {
        self.number = number
        self.expiry = expiry
        self.securityCode = securityCode
        self.name = name
        self.postalCode = postalCode
    }

    /// The card, or every field's error at once so the form can show each in place.
    ///
    /// `today` is the current month: a card is valid through the last day of its expiry month.
    public func validated(today: CardExpiry) -> Result<CardDetails, CardEntryErrors> {
        var errors: [CardField: Localized] = [:]
        let digits = number.filter { $0 != " " && $0 != "-" }
        var network: PaymentNetwork?
        if digits.isEmpty {
            errors[.number] = Localized("Enter the card number.")
        } else if !digits.allSatisfy(\.isASCIIDigit) {
            errors[.number] = Localized("Use digits only.")
        } else if let detected = PaymentNetwork.detect(cardNumber: digits) {
            network = detected
            if !detected.cardLengths.contains(digits.count) {
                var lengths = detected.cardLengths.map(String.init)
                let last = lengths.removeLast()
                let allowed = lengths.isEmpty ? Localized.verbatim(last) : Localized("\(lengths.joined(separator: ", ")) or \(last)")
                errors[.number] = Localized("A \(detected.displayName) number has \(allowed) digits; this has \(digits.count).")
            } else if !CardEntry.passesLuhn(digits) {
                errors[.number] = Localized("This card number is not valid: check the digits.")
            }
        } else {
            errors[.number] = Localized("Not a card number we know: use Visa, Mastercard, Amex, Discover or JCB.")
        }

        let parsedExpiry = CardEntry.parseExpiry(expiry)
        switch parsedExpiry {
        case .failure(let problem): errors[.expiry] = problem.message
        case .success(let value) where value < today: errors[.expiry] = Localized("This card expired at the end of \(value).")
        case .success: break
        }

        let code = securityCode.trimming(" ")
        let codeLength = network == .amex ? 4 : 3
        if code.count != codeLength || !code.allSatisfy(\.isASCIIDigit) {
            errors[.securityCode] =
                network == .amex
                ? Localized("Amex cards have a 4-digit security code on the front.")
                : Localized("Enter the \(codeLength)-digit security code from the back of the card.")
        }

        let holder = name.trimming(" ")
        if holder.isEmpty {
            errors[.name] = Localized("Enter the name on the card.")
        } else if holder.count > 80 {
            errors[.name] = Localized("The name is too long (at most 80 characters).")
        }

        if let problem = PostalAddress.postalCodeProblem(postalCode) { errors[.postalCode] = problem }

        guard errors.isEmpty, let network, case .success(let expiryValue) = parsedExpiry else {
            return .failure(CardEntryErrors(fields: errors))
        }
        return .success(
            CardDetails(number: digits, network: network, expiry: expiryValue, securityCode: code, name: holder, postalCode: postalCode.trimming(" "))
        )
    }

    /// The Luhn (mod 10) check every card number carries in its last digit.
    public static func passesLuhn(_ digits: String) -> Bool {
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            guard let digit = character.wholeNumberValue else { return false }
            if index % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }

    /// Reads "MM/YY" (also "MMYY" and "MM/YYYY").
    static func parseExpiry(_ text: String) -> Result<CardExpiry, ExpiryProblem> {
        let trimmed = text.trimming(" ")
        if trimmed.isEmpty { return .failure(ExpiryProblem(Localized("Enter the expiry date as MM/YY."))) }
        let parts: [Substring]
        if trimmed.contains("/") {
            parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        } else if trimmed.count == 4 {
            parts = [trimmed.prefix(2), trimmed.suffix(2)]
        } else {
            parts = []
        }
        guard parts.count == 2, let month = Int(parts[0]), let yearPart = Int(parts[1]),
            parts[0].count <= 2, parts[1].count == 2 || parts[1].count == 4,
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) })
        else { return .failure(ExpiryProblem(Localized("Enter the expiry date as MM/YY, e.g. 04/29."))) }
        guard (1...12).contains(month) else { return .failure(ExpiryProblem(Localized("The month must be 01 to 12."))) }
        let year = parts[1].count == 2 ? 2000 + yearPart : yearPart
        return .success(CardExpiry(month: month, year: year))
    }

    struct ExpiryProblem: Error {
        var message: Localized
        init(_ message: Localized) { self.message = message }
    }
}

/// The per-field errors of a card entry.
public struct CardEntryErrors: Error, Hashable, Sendable {
    public var fields: [CardField: Localized]
    public init(fields: [CardField: Localized]) { self.fields = fields }
}

/// A card that passed every check: what goes to the payment provider once, and is never stored.
public struct CardDetails: Hashable, Sendable {
    public var number: String
    public var network: PaymentNetwork
    public var expiry: CardExpiry
    public var securityCode: String
    public var name: String
    public var postalCode: String

    public var lastFour: String { String(number.suffix(4)) }
}

extension PaymentNetwork {
    /// The network a card number belongs to, from its leading digits (IIN ranges).
    public static func detect(cardNumber digits: String) -> PaymentNetwork? {
        func prefix(_ count: Int) -> Int? { digits.count >= count ? Int(digits.prefix(count)) : nil }
        if digits.hasPrefix("4") { return .visa }
        if let two = prefix(2), two == 34 || two == 37 { return .amex }
        if let two = prefix(2), (51...55).contains(two) { return .mastercard }
        if let four = prefix(4), (2221...2720).contains(four) { return .mastercard }
        if digits.hasPrefix("6011") || digits.hasPrefix("65") { return .discover }
        if let three = prefix(3), (644...649).contains(three) { return .discover }
        if let four = prefix(4), (3528...3589).contains(four) { return .jcb }
        return nil
    }

    /// The number lengths the network issues.
    public var cardLengths: [Int] {
        switch self {
        case .visa: [13, 16, 19]
        case .mastercard: [16]
        case .amex: [15]
        case .discover, .jcb: [16, 17, 18, 19]
        // Never detected from a typed number (only a provider names them): the lengths their issuers use.
        case .diners: [14, 16, 19]
        case .unionpay, .cartesBancaires, .eftpos, .other: [16, 17, 18, 19]
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    func trimming(_ character: Character) -> String {
        var slice = Substring(self)
        while slice.first == character { slice.removeFirst() }
        while slice.last == character { slice.removeLast() }
        return String(slice)
    }
}
