import LiveObjects

/// The sign-ins in progress (`SignInAttempt`, each with its controller), kept outside the state, which holds only their ids: state stays a value, and
/// only effects reach the live objects.
///
/// Order of calls: a reducer takes a fresh id (`AppState.nextSignInID`) and returns an effect → the
/// effect makes the attempt and files it here → later effects look it up by id → an effect removes
/// it when the sign-in ends.
@MainActor
public final class LiveSignIns {
    private var signIns: [Int: SignInAttempt] = [:]

    public init() {}

    func file(_ attempt: SignInAttempt, as id: Int) { signIns[id] = attempt }
    func signIn(_ id: Int) -> SignInAttempt? { signIns[id] }
    func endSignIn(_ id: Int) { signIns[id] = nil }

    /// How many attempts are kept: none once every sign-in has ended.
    public var count: Int { signIns.count }
}

extension LiveSignIns: LiveObject {}
