import StoreClients

/// A store that cannot be reached (a database server down or restarting): the shop keeps what it
/// has in memory, says so, and tries again on the host's ticks until the store answers.
///
/// Order of calls: a feature's store call fails → `report` (an unavailable store is waited for;
/// anything else is told as it is) → the host ticks while `isWaitingForStore` → `retry` on each tick.
@MainActor
enum StoreOutageFeature {
    /// Tells the shopper what failed; an unavailable store also starts the waiting.
    static func report(_ state: inout AppState, _ error: any Error, failure: (String) -> String) {
        if let storage = error as? StorageError, storage.isUnavailable {
            state.screens.isWaitingForStore = true
            state.notice = Notice(.error, StorageError.unavailableMessage)
        } else {
            state.notice = Notice(.error, failure("\(error)"))
        }
    }

    /// Tries again what the shop needs from the store: the products on screen and the cart to save.
    static func retry(_ state: inout AppState, _ env: ShopEnvironment) {
        guard state.screens.isWaitingForStore else { return }
        state.screens.isWaitingForStore = false
        ProductListFeature.reload(&state, env, keepSelection: true)
        CartFeature.saveCartAndShowIt(&state, env, now: true)
        if !state.screens.isWaitingForStore, state.notice?.text == StorageError.unavailableMessage {
            state.notice = Notice(.info, "The store is back.")
        }
    }
}
