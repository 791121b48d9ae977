import ShopPorts

/// A database that cannot be reached (a database server down or restarting): the shop keeps what it
/// has in memory, says so, and tries again on the host's ticks until the database answers.
///
/// Order of calls: a feature's database call fails → `reportStorageFailure` (an unavailable database is waited
/// for; anything else is told as it is) → the host ticks while `isWaitingForStorage` → on a tick, when
/// `isDueForStorageRetry`, AppReducer re-reads the products on screen → their answer ends the wait
/// (`storageAnswered`), and the cart's write follows.
extension AppState {
    /// Tells the shopper what failed; an unavailable database also starts the waiting.
    mutating func reportStorageFailure(_ error: any Error, failure: (String) -> String) {
        if let storage = error as? StorageError, storage.isUnavailable {
            screens.isWaitingForStorage = true
            screens.notice = Notice(.error, StorageError.unavailableMessage)
        } else {
            screens.notice = Notice(.error, failure("\(error)"))
        }
    }

    /// Waiting for the database, with no try pending: a tick while one is leaves it be, so a slow database is not
    /// asked again and again.
    var isDueForStorageRetry: Bool { screens.isWaitingForStorage && productListPending == nil }

    /// The database answered: the wait ends, and the cart's write (held meanwhile) follows at the step's end.
    mutating func storageAnswered() {
        guard screens.isWaitingForStorage else { return }
        screens.isWaitingForStorage = false
        cartSaveFailed = nil
        if screens.notice?.text == StorageError.unavailableMessage { screens.notice = Notice(.info, "The database is back.") }
    }
}
