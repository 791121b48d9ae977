import StoreModels

/// The rows of the payment sheet, top to bottom.
public enum PaymentSheetRow: Int, CaseIterable, Hashable, Sendable {
    case card, shippingAddress, shippingMethod, contact

    public var title: String {
        switch self {
        case .card: "Card"
        case .shippingAddress: "Ship to"
        case .shippingMethod: "Shipping"
        case .contact: "Contact"
        }
    }
}

/// A list of choices for one sheet row.
public struct ChooserState: Equatable, Sendable {
    public struct Option: Equatable, Sendable {
        public var title: String
        public var detail: String
        public init(title: String, detail: String) {
            self.title = title
            self.detail = detail
        }
    }
    public var row: PaymentSheetRow
    public var options: [Option]
    public var selectedIndex: Int

    public init(row: PaymentSheetRow, options: [Option], selectedIndex: Int) {
        self.row = row
        self.options = options
        self.selectedIndex = selectedIndex
    }
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
    case confirming(prompt: String)
    /// Confirmed; the controller is authorizing the payment.
    case authorizing
    /// Authorized; the provider and the shop are charging it.
    case processing
}

/// The payment sheet, modelled on Apple Pay's.
public struct PaymentSheetState: Equatable, Sendable {
    public var merchantName: String
    /// The text of each row's current choice.
    public var rowValues: [PaymentSheetRow: String]
    /// Errors the merchant reported for a row, shown next to it.
    public var rowErrors: [PaymentSheetRow: String] = [:]
    public var selectedRow: PaymentSheetRow = .card
    public var summaryItems: [SummaryItem]
    public var phase: CheckoutPhase
    /// Why the last payment on this sheet did not go through; shown until the next Pay, and kept
    /// while the shopper changes a row after it.
    public var failure: String?
    /// A card, an address and a contact are chosen.
    public var hasEveryChoice = false

    public init(merchantName: String, rowValues: [PaymentSheetRow: String], summaryItems: [SummaryItem], phase: CheckoutPhase) {
        self.merchantName = merchantName
        self.rowValues = rowValues
        self.summaryItems = summaryItems
        self.phase = phase
    }

    public var chooser: ChooserState? {
        if case .choosing(let chooser) = phase { chooser } else { nil }
    }

    public var authorizationPrompt: String? {
        if case .confirming(let prompt) = phase { prompt } else { nil }
    }

    /// A payment is in flight: keys wait, the spinner turns.
    public var isBusy: Bool { phase == .authorizing || phase == .processing }

    public var offersCardSetup: Bool { phase == .needsCard }

    /// "Authorizing…", "Processing…", the last failure, or nil.
    public var status: String? {
        switch phase {
        case .confirming, .authorizing: "Authorizing…"
        case .processing: "Processing…"
        case .needsCard, .reviewing, .choosing: failure
        }
    }

    public var isStatusError: Bool {
        switch phase {
        case .confirming, .authorizing, .processing: false
        case .needsCard, .reviewing, .choosing: failure != nil
        }
    }

    public var isPayEnabled: Bool {
        guard hasEveryChoice, rowErrors.isEmpty else { return false }
        switch phase {
        case .reviewing, .choosing: return true
        case .needsCard, .confirming, .authorizing, .processing: return false
        }
    }
}
