/// The controllers' sessions of what is on screen (the payment sheet, a sign-in), kept outside the
/// state, which holds only their ids: state stays a value, and only effects reach the live objects.
///
/// Order of calls: a reducer takes a fresh id (`AppState.nextSessionID`) and returns an effect → the
/// effect makes the session and files it here → later effects look it up by id → an effect removes
/// it when the sheet or the sign-in ends.
@MainActor
public final class LiveSessions {
    private var payments: [Int: PaymentSession] = [:]
    private var signIns: [Int: SignInSession] = [:]

    public init() {}

    func file(_ session: PaymentSession, as id: Int) { payments[id] = session }
    func file(_ session: SignInSession, as id: Int) { signIns[id] = session }
    func payment(_ id: Int) -> PaymentSession? { payments[id] }
    func signIn(_ id: Int) -> SignInSession? { signIns[id] }
    func endPayment(_ id: Int) { payments[id] = nil }
    func endSignIn(_ id: Int) { signIns[id] = nil }

    /// How many sessions are kept: none once every sheet and sign-in has ended.
    public var count: Int { payments.count + signIns.count }
}
