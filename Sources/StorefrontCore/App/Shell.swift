import ShopLanguages
import ShopPorts

/// The part of the screens every feature shares: where the shopper is (the route and the form on top), what the
/// shop tells them, and whether the database is being waited for.
///
/// Each feature's scope carries it, taken from the app state and written back after the feature reduces
/// (`AppState.scope`), as a browser's history and status bar are shared by its pages.
public struct Shell: Equatable, Sendable {
    public var route: [Screen]
    public var form: FormState?
    public var notice: Notice?
    public var isWaitingForStorage: Bool
    /// The language every screen speaks: the session's to start with, then the shopper's choice (`L`).
    public var language = Language.english
    /// The shopper's country, as far as the shop knows it (their locale, then the address they ship to): where money
    /// and dates are written as they are there. Nil until something says.
    public var region: String?

    /// The market the shop sells in to this shopper (`Market.id`): their country's, then their address's, or the one
    /// they chose. Nil for a shop without markets.
    public var market: String?

    /// The language in the shopper's region, or in the language's own country while that is unknown.
    public var formats: FormatLocale { region.map { FormatLocale(language: language, region: $0) } ?? FormatLocale(language: language) }

    public init(route: [Screen], form: FormState? = nil, notice: Notice? = nil, isWaitingForStorage: Bool = false) {
        self.route = route
        self.form = form
        self.notice = notice
        self.isWaitingForStorage = isWaitingForStorage
    }

    public var screen: Screen { route.last ?? .productList }

    /// Brings `screen` to the top: back to it where it is in the route, else pushed.
    mutating func show(_ screen: Screen) {
        if let existing = route.firstIndex(of: screen) {
            route.removeSubrange((existing + 1)...)
        } else {
            route.append(screen)
        }
    }

    /// Pushes `screen` on top, whatever is below.
    mutating func push(_ screen: Screen) {
        route.append(screen)
    }

    mutating func popScreen() {
        guard route.count > 1 else { return }
        route.removeLast()
    }

    /// Back to the product list; the screens of a finished purchase or order are dropped as they leave the route.
    mutating func goToShop() {
        route = [.productList]
    }

    /// Shows `form` over the current screen, or in place of the form already shown.
    mutating func presentForm(_ form: FormState) {
        self.form = form
        if screen != .form { route.append(.form) }
    }

    mutating func dismissForm() {
        form = nil
        if screen == .form { popScreen() }
    }
}

/// A database that cannot be reached (a database server down or restarting): the shop keeps what it
/// has in memory, says so, and tries again on the host's ticks until the database answers.
///
/// Order of calls: a feature's database call fails → `reportStorageFailure` (an unavailable database is waited
/// for; anything else is told as it is) → the host ticks while `isWaitingForStorage` → on a tick, when the
/// product list has no read pending, AppReducer re-reads the products on screen → their answer ends the wait
/// (`storageAnswered`) → at the step's end the cart hears the database is back, and its write follows.
extension Shell {
    /// Tells the shopper what failed; an unavailable database also starts the waiting.
    mutating func reportStorageFailure(_ error: any Error, failure: (String) -> Localized) {
        if let storage = error as? StorageError, storage.isUnavailable {
            isWaitingForStorage = true
            notice = Notice(.error, StorageError.unavailableWords)
        } else {
            notice = Notice(.error, failure("\(error)"))
        }
    }

    /// The database answered: the wait ends.
    mutating func storageAnswered() {
        guard isWaitingForStorage else { return }
        isWaitingForStorage = false
        if notice?.text == StorageError.unavailableWords { notice = Notice(.info, "The database is back.") }
    }
}
