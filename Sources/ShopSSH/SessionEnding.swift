/// Why a session ended, as the server logs it.
enum SessionEnding: String, Sendable {
    /// The shop exited by itself: the shopper quit, or it crashed.
    case shopExited = "finished"
    case clientGone = "client went away"
    case idle = "idle"
    case shutdown = "server shutting down"
}
