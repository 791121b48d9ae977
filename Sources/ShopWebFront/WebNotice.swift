import Foundation
import HummingbirdWebSocket
import NIOWebSocket
import PseudoTerminal
import ShopLanguages
import ShopSessions

/// What a page may send besides keystrokes, as a text message.
enum WebControlMessage: Equatable {
    case resize(TerminalSize)

    /// Parses `{"type":"resize","columns":120,"rows":40}`; nil for anything else.
    init?(_ text: String) {
        guard text.utf8.count <= 256,
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            object["type"] as? String == "resize",
            let columns = object["columns"] as? Int, let rows = object["rows"] as? Int,
            (1...10_000).contains(columns), (1...10_000).contains(rows)
        else { return nil }
        self = .resize(TerminalSize(columns: columns, rows: rows))
    }
}

/// The words a page shows when its session is refused or ends.
enum WebNotice {
    /// Why a visit was not let in, in words the page shows in the visitor's language.
    static func refusal(_ refusal: AdmissionControl.Refusal) -> Localized {
        switch refusal {
        case .tooManyConnections(_, let limit): Localized("Too many visits from your address (\(limit) a minute). Try again in a minute.")
        case .full(let limit), .guestsFull(let limit): Localized("The shop is full (\(limit) visitors). Try again in a few minutes.")
        case .draining: Localized("The shop is closing for maintenance. Try again in a few minutes.")
        case .noGuests: Localized("This shop takes no visitors from the web just now.")
        case .tooManyGuests(_, let limit):
            .plural(
                "Your address has \(limit) shop open already. Close one and try again.",
                "Your address has \(limit) shops open already. Close one and try again.", count: limit)
        }
    }

    /// Why a signed-in tab closed, or was never opened, once its sign-in ended.
    static let signedOut = Localized(
        "You were signed out (here, in another tab or device, or everywhere from your account). Reconnect to shop as a guest.")

    static func ending(
        _ ending: WebSessionEnding, crashed: Bool, termination: ProcessTermination, limits: WebFrontLimits
    ) -> (Localized, WebSocketErrorCode) {
        switch ending {
        case .shopExited where crashed:
            (Localized("This session stopped unexpectedly (\(termination.description)). Reconnect to go on."), .unexpectedServerError)
        case .shopExited, .pageGone, .neverAdopted: (Localized("You left the shop."), .normalClosure)
        case .idle: (Localized("Closed after \(ServeDuration.describe(limits.idleTimeout)) without a key."), .goingAway)
        case .tooLong: (Localized("Closed after \(ServeDuration.describe(limits.maxSessionLength)), the longest a visit lasts."), .goingAway)
        case .inputFlood: (Localized("Closed: the page sent input faster than anyone types."), .policyViolation)
        case .badMessage:
            (
                Localized("Closed: the page sent a message the shop cannot take (over \(limits.maxMessageBytes / 1024) KiB, or not understood)."),
                .policyViolation
            )
        case .shutdown: (Localized("The shop is closing for maintenance. Try again in a few minutes."), .goingAway)
        case .signedOut: (signedOut, .goingAway)
        case .accountMerged: (Localized("Your account was merged into another. Reconnect to go on in the account it joined."), .goingAway)
        }
    }

    /// `{"type":"ended","text":…}`: the page shows the text over the terminal with a Reconnect button; with
    /// `"signedOut":true`, Reconnect loads the page again, whose account bar then says who is there.
    static func json(ended text: String, signedOut: Bool = false) -> String {
        var object: [String: Any] = ["type": "ended", "text": text]
        if signedOut { object["signedOut"] = true }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
