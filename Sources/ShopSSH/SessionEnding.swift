import Foundation
import PseudoTerminal
import ShopSessions

/// Why a session ended, as the server logs it.
enum SessionEnding: String, Sendable {
    /// The shop exited by itself: the shopper quit, or it crashed.
    case shopExited = "finished"
    case clientGone = "client went away"
    case idle = "idle"
    case shutdown = "server shutting down"
}

extension SessionEnding {
    /// What the shopper reads as the session ends this way, if anything: the same words on every SSH front.
    func message(for termination: ProcessTermination, idleTimeout: Duration) -> String? {
        switch self {
        case .idle: "storefront: closed after \(ServeDuration.describe(idleTimeout)) without a key; your cart is saved."
        case .shutdown: "storefront: the shop is closing for maintenance; your cart is saved. Try again in a few minutes."
        case .clientGone: nil
        case .shopExited:
            termination.isCrash(besides: Self.endedOnPurpose)
                ? "storefront: this session stopped unexpectedly (\(termination)); your cart is saved. Reconnect to go on." : nil
        }
    }

    /// Whether the session crashed: the shop ended by itself, of a signal other than the ones that end a session on
    /// purpose.
    func isCrash(_ termination: ProcessTermination) -> Bool {
        self == .shopExited && termination.isCrash(besides: Self.endedOnPurpose)
    }

    /// The signals a session's shop is ended with on purpose: the client's hangup, a shutdown, an interrupt.
    private static let endedOnPurpose = [SIGHUP, SIGTERM, SIGINT]
}
