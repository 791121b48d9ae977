import ShopLanguages
import ShopModels
import ShopPorts

/// The rows of the payment sheet, top to bottom.
public enum PaymentSheetRow: Int, CaseIterable, Hashable, Sendable {
    case card, shippingAddress, shippingMethod, contact, discountCode
    /// How often a subscription renews: only on a sheet that starts one, under the items.
    case schedule
    /// What is being bought: each line with its variant, quantity and price, drawn under the row where the sheet has
    /// room, else folded to a count that Enter opens.
    case items

    /// The rows of a sheet that buys once.
    public static let standard: [PaymentSheetRow] = [.items, .card, .shippingAddress, .shippingMethod, .contact, .discountCode]
    /// The rows of a sheet that starts a subscription.
    public static let subscribing: [PaymentSheetRow] = [.items, .schedule] + standard.dropFirst()

    public var title: Localized {
        switch self {
        case .card: Localized("Card")
        case .shippingAddress: Localized("Ship to")
        case .shippingMethod: Localized("Shipping")
        case .contact: Localized("Contact")
        case .discountCode: Localized("Code")
        case .schedule: Localized("Every")
        case .items: Localized("Items")
        }
    }

    /// The chooser's heading for the row.
    public var choosing: Localized {
        switch self {
        case .card: Localized("Choose a card")
        case .shippingAddress: Localized("Choose where it ships")
        case .shippingMethod: Localized("Choose a shipping method")
        case .contact: Localized("Choose a contact")
        case .discountCode: Localized("Choose a code")
        case .schedule: Localized("Choose how often")
        case .items: Localized("In this order")
        }
    }
}

/// A list of choices for one sheet row.
public struct ChooserState: Equatable, Sendable {
    public struct Option: Equatable, Sendable {
        public var title: Localized
        public var detail: Localized
        public init(title: Localized, detail: Localized) {
            self.title = title
            self.detail = detail
        }
    }
    public var row: PaymentSheetRow
    public var options: [Option]
    public var selectedIndex: Int
    /// The last row, "Add a new …", which opens the form for one; nil where the shopper cannot add (shipping methods).
    public var addTitle: Localized?

    public init(row: PaymentSheetRow, options: [Option], selectedIndex: Int, addTitle: Localized? = nil) {
        self.row = row
        self.options = options
        self.selectedIndex = selectedIndex
        self.addTitle = addTitle
    }

    /// The options, and the "Add a new …" row after them.
    public var rowCount: Int { options.count + (addTitle == nil ? 0 : 1) }

    /// Whether the selection is on "Add a new …".
    public var isOnAddRow: Bool { addTitle != nil && selectedIndex == options.count }
}

/// Where the payment sheet is in a checkout. The sheet's mode is decided here once: its keys, its
/// footer and its drawing all read it.
public enum CheckoutPhase: Equatable, Sendable {
    /// The wallet has no card on the shop's networks: the sheet offers "Set up card" instead of Pay.
    case needsCard
    /// The shopper looks over the rows and may press Pay.
    case reviewing
    /// A chooser is open over one row.
    case choosing(ChooserState)
    /// The Touch ID stand-in: "Pay <merchant> <total>? Enter to confirm, Esc to cancel".
    case confirming(prompt: Localized)
    /// Confirmed; the controller is authorizing the payment.
    case authorizing
    /// Authorized; the provider and the shop are charging it.
    case processing
    /// The card's bank wants the shopper to pass its check (3-D Secure) on its page before it charges.
    case checkingWithBank(BankCheck)
    /// A charge went unanswered: the shop asks the provider whether it went through, and Pay waits for the answer.
    /// `isStopping` once Esc asked the shop to stop asking (the next Pay settles it first).
    case checkingPayment(isStopping: Bool)
}

/// The bank's check of a payment (3-D Secure): its page as a link and a QR code, while the shop waits for it.
public struct BankCheck: Equatable, Sendable {
    public var url: String
    public var qrCode: QRCode?
    /// Esc was pressed: the payment is being canceled at the provider.
    public var isCanceling = false

    public init(url: String, qrCode: QRCode?) {
        self.url = url
        self.qrCode = qrCode
    }
}

/// One line of what the sheet buys, as its Items row lists it.
public struct SheetItem: Equatable, Sendable {
    /// "2 × Compile-Time Coffee — Filter · 1 kg": the quantity and the line's name, variant and all.
    public var title: Localized
    /// The line's price: its unit price times its quantity.
    public var amount: Money
    /// A subscription's schedule: "every 2 weeks, next on 12 Dec 2026"; nil for a purchase made once.
    public var schedule: Localized?

    public init(title: Localized, amount: Money, schedule: Localized? = nil) {
        self.title = title
        self.amount = amount
        self.schedule = schedule
    }
}

/// The payment sheet, modelled on Apple Pay's.
public struct PaymentSheetState: Equatable, Sendable {
    public var merchantName: String
    /// What is being bought, line by line, in the order's currency.
    public var items: [SheetItem] = []
    /// The text of each row's current choice.
    public var rowValues: [PaymentSheetRow: Localized]
    /// The rows shown, top to bottom.
    public var rows = PaymentSheetRow.standard
    /// Errors the merchant reported for a row, shown next to it.
    public var rowErrors: [PaymentSheetRow: Localized] = [:]
    public var selectedRow: PaymentSheetRow = .card
    public var summaryItems: [SummaryItem]
    public var phase: CheckoutPhase
    /// Why the last payment on this sheet did not go through; shown until the next Pay, and kept
    /// while the shopper changes a row after it.
    public var failure: Localized?
    /// The rows still without a choice (of card, ship to and contact), in the sheet's order.
    public var unchosenRows: [PaymentSheetRow] = [.card, .shippingAddress, .contact]
    /// The row Pay pointed at because it needs attention, marked until it is fixed.
    public var markedRow: PaymentSheetRow?

    /// A card, an address and a contact are chosen.
    public var hasEveryChoice: Bool { unchosenRows.isEmpty }

    /// The first row that keeps Pay from working, and why: a missing choice, or what the shop cannot accept.
    public var attention: (row: PaymentSheetRow, reason: Localized)? {
        for row in rows {
            if unchosenRows.contains(row) { return (row, Self.missingReason(row)) }
            if let error = rowErrors[row] { return (row, error) }
        }
        return nil
    }

    static func missingReason(_ row: PaymentSheetRow) -> Localized {
        switch row {
        case .card: Localized("Add a card to pay.")
        case .shippingAddress: Localized("Add a shipping address to pay.")
        case .shippingMethod: Localized("Choose a shipping method to pay.")
        case .contact: Localized("Add a contact to pay.")
        case .discountCode, .schedule, .items: .verbatim("")
        }
    }

    public init(merchantName: String, rowValues: [PaymentSheetRow: Localized], summaryItems: [SummaryItem], phase: CheckoutPhase) {
        self.merchantName = merchantName
        self.rowValues = rowValues
        self.summaryItems = summaryItems
        self.phase = phase
    }

    /// "3 items": the Items row's value where its lines are listed under it.
    public static func itemCount(_ count: Int) -> Localized { .plural("\(count) item", "\(count) items", count: count) }

    /// The Items row's value with its lines listed under it: how many items.
    public var itemCountWords: Localized { Self.itemCount(itemQuantity) }

    /// How many units the sheet buys, as its lines' quantities add up; kept with the items.
    public var itemQuantity = 0

    public var chooser: ChooserState? {
        if case .choosing(let chooser) = phase { chooser } else { nil }
    }

    public var authorizationPrompt: Localized? {
        if case .confirming(let prompt) = phase { prompt } else { nil }
    }

    /// A payment is in flight: keys wait, the spinner turns.
    public var isBusy: Bool {
        switch phase {
        case .authorizing, .processing, .checkingWithBank, .checkingPayment: true
        case .needsCard, .reviewing, .choosing, .confirming: false
        }
    }

    /// The bank's check the sheet waits for, if it waits for one.
    public var bankCheck: BankCheck? {
        if case .checkingWithBank(let check) = phase { check } else { nil }
    }

    public var offersCardSetup: Bool { phase == .needsCard }

    /// "Authorizing…", "Processing…", the last failure, what Pay still needs, or nil.
    public var status: Localized? {
        switch phase {
        case .confirming, .authorizing: Localized("Authorizing…")
        case .processing: Localized("Processing…")
        case .checkingWithBank(let check): check.isCanceling ? Localized("Canceling the payment…") : Localized("Waiting for your bank's check…")
        case .checkingPayment:
            Localized("No answer yet: asking the payment service whether the payment went through. You are never charged twice.")
        case .needsCard: failure
        case .reviewing, .choosing: failure ?? (hasEveryChoice ? nil : attention?.reason)
        }
    }

    public var isStatusError: Bool {
        switch phase {
        case .confirming, .authorizing, .processing, .checkingWithBank, .checkingPayment: false
        case .needsCard, .reviewing, .choosing: failure != nil
        }
    }

    public var isPayEnabled: Bool {
        guard hasEveryChoice, rowErrors.isEmpty else { return false }
        switch phase {
        case .reviewing, .choosing: return true
        case .needsCard, .confirming, .authorizing, .processing, .checkingWithBank, .checkingPayment: return false
        }
    }
}
