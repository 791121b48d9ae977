/// Why a browser session ended, as the log names it.
enum WebSessionEnding: String, Sendable {
    case shopExited = "finished"
    case pageGone = "page went away"
    case idle = "idle"
    case tooLong = "reached the longest session"
    case inputFlood = "input too fast"
    case badMessage = "a message it cannot take"
    case shutdown = "server shutting down"
    case signedOut = "signed out"
    case accountMerged = "account merged"
    /// A session started with its page whose socket never came for it.
    case neverAdopted = "its page never came for it"
}
