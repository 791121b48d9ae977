import ShopLanguages
import ShopModels
import ShopPorts

/// A form: sign-in, a new card, or a new address. Each field shows its own error in place.
public struct FormState: Equatable, Sendable {
    public enum Purpose: Equatable, Sendable {
        case signIn, addCard, addAddress
        /// A name for a new API token (Account).
        case apiToken
        /// The merchant console's entries: a parcel, a refund's amount and reason, a stock count.
        case shipOrder, refundDetails, stockCount
        /// A product of the catalog, new or edited.
        case productDetails
        /// A discount code for the open payment sheet.
        case discountCode
        /// A new discount code's terms (the merchant console).
        case discountTerms
        /// The console's customers: the words to find them by, and a note on one.
        case customerSearch, customerNote
    }
    public struct Field: Equatable, Sendable {
        public var id: String
        public var label: Localized
        public var value: String
        public var hint: Localized
        public var error: Localized?
        /// Drawn as dots (the security code).
        public var isMasked: Bool
        /// The values a choice takes, picked by typing their first letter or Space; empty for text.
        public var options: [String]
        public init(
            id: String, label: Localized, value: String = "", hint: Localized = "", error: Localized? = nil, isMasked: Bool = false,
            options: [String] = []
        ) {
            self.id = id
            self.label = label
            self.value = value.isEmpty ? options.first ?? "" : value
            self.hint = hint
            self.error = error
            self.isMasked = isMasked
            self.options = options
        }
    }
    public var purpose: Purpose
    public var title: Localized
    public var message: Localized
    public var fields: [Field]
    public var focusedIndex = 0
    public var submitLabel: Localized
    /// "Saving…", or what went wrong with the whole form.
    public var status: Localized?
    public var isStatusError = false
    public var isBusy = false
    /// A link to open elsewhere, drawn with its QR code, while the form waits for what happens there (Esc leaves).
    public var link: String?
    public var qrCode: QRCode?

    public init(purpose: Purpose, title: Localized, message: Localized, fields: [Field], submitLabel: Localized) {
        self.purpose = purpose
        self.title = title
        self.message = message
        self.fields = fields
        self.submitLabel = submitLabel
    }

    /// Saving, or waiting on a link opened elsewhere: the spinner turns.
    public var isInProgress: Bool { isBusy || link != nil }

    public var isOnLastField: Bool { focusedIndex >= fields.count - 1 }
    public func value(_ id: String) -> String { fields.first { $0.id == id }?.value ?? "" }

    /// Puts each field's message from `errors` (by field id) on it, clears the others and the status, and moves to
    /// the first field that is wrong.
    /// Saving failed: the message goes on `field` (focused), or on the whole form when nil or no such field.
    mutating func fail(_ message: String, field: String?) { fail(Localized.lookup(message), field: field) }

    /// `fail` with words in the shopper's language.
    mutating func fail(_ message: Localized, field: String?) {
        isBusy = false
        if let field, let index = fields.firstIndex(where: { $0.id == field }) {
            fields[index].error = message
            focusedIndex = index
            status = nil
        } else {
            status = message
            isStatusError = true
        }
    }

    mutating func showFieldErrors(_ errors: [String: Localized]) {
        for index in fields.indices { fields[index].error = errors[fields[index].id] }
        if let first = fields.firstIndex(where: { $0.error != nil }) { focusedIndex = first }
        status = nil
    }
}
