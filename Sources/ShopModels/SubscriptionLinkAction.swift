/// What a link in a renewal's reminder does to its subscription, once its page is confirmed: the last part of the
/// link's path (`/subscription/ID/skip`).
public enum SubscriptionLinkAction: String, Hashable, Sendable, CaseIterable {
    /// Skips the renewal the reminder was for, and only that one.
    case skip
    case pause
    /// Ends the subscription at the reminded renewal's date instead of renewing.
    case cancel
    /// Stops the reminders (the `List-Unsubscribe` link, which takes RFC 8058's one-click POST).
    case stopReminders = "stop-reminders"

    /// The change it makes, as every front makes it.
    public var change: SubscriptionChange {
        switch self {
        case .skip: .skipNext
        case .pause: .pause
        case .cancel: .cancelAtPeriodEnd
        case .stopReminders: .reminders(on: false)
        }
    }
}
