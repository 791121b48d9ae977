import ShopPorts

/// A database that cannot be reached (a database server down or restarting): the shop keeps what it
/// has in memory, says so, and tries again on the host's ticks until the database answers.
///
/// Order of calls: a feature's database call fails → `report` (an unavailable database is waited for;
/// anything else is told as it is) → the host ticks while `isWaitingForStorage` → `retry` on a tick
/// re-reads the products on screen → their answer ends the wait (`back`), and the cart's write follows.
@MainActor
enum StorageOutageFeature {
    /// Tells the shopper what failed; an unavailable database also starts the waiting.
    static func report(_ state: inout AppState, _ error: any Error, failure: (String) -> String) {
        if let storage = error as? StorageError, storage.isUnavailable {
            state.screens.isWaitingForStorage = true
            state.notice = Notice(.error, StorageError.unavailableMessage)
        } else {
            state.notice = Notice(.error, failure("\(error)"))
        }
    }

    /// Tries again what the shop needs from the database: the products on screen. One try at a time: a
    /// tick while it is pending leaves it be, so a slow database is not asked again and again.
    static func retry(_ state: inout AppState, _ env: ShopEnvironment) -> Effect {
        guard state.screens.isWaitingForStorage, state.productListPending == nil else { return .none }
        return ProductListFeature.reload(&state, env, keepSelection: true)
    }

    /// The database answered: the wait ends, and the cart's write (held meanwhile) follows at the step's end.
    static func back(_ state: inout AppState) {
        guard state.screens.isWaitingForStorage else { return }
        state.screens.isWaitingForStorage = false
        state.cartSaveFailed = nil
        if state.notice?.text == StorageError.unavailableMessage { state.notice = Notice(.info, "The database is back.") }
    }
}
