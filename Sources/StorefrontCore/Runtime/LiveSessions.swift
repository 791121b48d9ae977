import LiveObjects

/// The sign-in controllers' sessions, kept outside the state, which holds only their ids: state stays a value, and
/// only effects reach the live objects.
///
/// Order of calls: a reducer takes a fresh id (`AppState.nextSessionID`) and returns an effect → the
/// effect makes the session and files it here → later effects look it up by id → an effect removes
/// it when the sign-in ends.
@MainActor
public final class LiveSessions {
    private var signIns: [Int: SignInSession] = [:]

    public init() {}

    func file(_ session: SignInSession, as id: Int) { signIns[id] = session }
    func signIn(_ id: Int) -> SignInSession? { signIns[id] }
    func endSignIn(_ id: Int) { signIns[id] = nil }

    /// How many sessions are kept: none once every sign-in has ended.
    public var count: Int { signIns.count }
}

extension LiveSessions: LiveObject {}
