import Foundation
import LiveObjects
import ShopIdentity
import ShopLanguages
import ShopPorts

/// How a terminal signs in with one provider, and what is made of who signed in.
public struct OpenIDTerminalFlow: Sendable {
    public var client: OpenIDClient
    /// The shop's web origin, where a browser finishes a sign-in for a provider without a device endpoint; nil offers
    /// the device flow only.
    public var webOrigin: String?
    public var terminals: any TerminalSignIns
    public var wakeups: any SignInWakeups
    public var dates: DateSource
    /// What the device flow waits on between two asks: tests give a clock they move.
    public var clock: any Clock<Duration>
    /// Makes each link's secret handle: 128 random bits (a short link makes a small QR code; it lasts 10 minutes and
    /// works once), fixed in tests whose frames show it.
    public var newHandle: @Sendable () -> String = { Encodings.randomToken(bytes: 16) }
    /// Runs once the provider vouched for `identity`: the credential the sign-in ends with.
    public var accepted: @Sendable (_ identity: OpenIDIdentity) async throws(SignInError) -> any SignInCredential

    public init(
        client: OpenIDClient, webOrigin: String?, terminals: any TerminalSignIns, wakeups: any SignInWakeups, dates: DateSource,
        clock: any Clock<Duration>, accepted: @escaping @Sendable (_ identity: OpenIDIdentity) async throws(SignInError) -> any SignInCredential
    ) {
        self.client = client
        self.webOrigin = webOrigin
        self.terminals = terminals
        self.wakeups = wakeups
        self.dates = dates
        self.clock = clock
        self.accepted = accepted
    }

    /// How long a link or a device code is given.
    public static let lifetime: TimeInterval = 600
    /// The path under the web origin a terminal's link opens; the handle follows it.
    public static let linkPath = "/sign-in/terminal/"
}

/// One sign-in with a provider from a terminal: a link and its QR code to open on a phone or in a browser, and a
/// wait that ends the moment the browser is done.
///
/// Order of steps: `begin()` → with a device endpoint, its code and link shown, then the token endpoint asked at the
/// provider's interval; else a handle filed and the shop's link shown, then a wait for the wake `web` sends when the
/// provider called back → the identity, `flow.accepted` → the delegate hears the credential. Esc stops the wait.
@MainActor
public final class OpenIDTerminalSignInController: PromptingSignInController {
    private let flow: OpenIDTerminalFlow
    private var waiting: Task<Void, Never>?

    public init(flow: OpenIDTerminalFlow) {
        self.flow = flow
        super.init()
        whenFinished = { [weak self] in self?.waiting?.cancel() }
    }

    public override func performRequests() {
        Task { await begin() }
    }

    public override func begin() async {
        let name = flow.client.settings.name
        do {
            if let device = try await flow.client.startDeviceAuthorization() {
                show(
                    link: device.verificationURIComplete ?? device.verificationURI,
                    message: "Open the link on your phone or in a browser, sign in with \(name), and confirm the code \(device.userCode).")
                waiting = Task { [weak self, flow] in
                    let outcome = await Self.followDevice(device, flow: flow)
                    // A device flow the provider will not finish (Google serves it to "TVs and Limited Input devices"
                    // clients only) goes on through the shop's own link, where the shop has one.
                    if case .failure(.deviceFlowRefused) = outcome, flow.webOrigin != nil {
                        await self?.beginLink()
                        return
                    }
                    await self?.conclude(outcome.mapError(\.signInError))
                }
                return
            }
        } catch .tokenEndpoint where flow.webOrigin != nil {
            // The device endpoint refused (a client type it does not serve, say): the shop's link needs no device flow.
        } catch {
            return fail(.failed("\(name) cannot be reached now: \(error)"))
        }
        await beginLink()
    }

    /// The shop's own link: a handle filed, the link shown, then a wait for the wake `web` sends.
    private func beginLink() async {
        let name = flow.client.settings.name
        guard let origin = flow.webOrigin else {
            return fail(.failed("\(name) cannot sign in a terminal here: the shop has no web address for its page (storefront serve --web-origin)."))
        }
        let handle = flow.newHandle()
        let key = Encodings.sha256Hex(handle)
        do {
            try await flow.terminals.file(handleHash: key, provider: flow.client.settings.id, at: flow.dates.now())
        } catch {
            return fail(.failed("The sign-in could not be started: \(error)"))
        }
        show(
            link: origin + OpenIDTerminalFlow.linkPath + handle,
            message: Localized(
                "Open the link on your phone or in a browser and sign in with \(name) there. The page shows \(TerminalLinkCode.of(handle)), as here.")
        )
        waiting = Task { [weak self, flow] in
            let outcome = await Self.waitForBrowser(key, flow: flow)
            await self?.conclude(outcome)
        }
    }

    /// The link on screen until the outcome; Esc (the only answer it takes) cancels.
    private func show(link: String, message: Localized) {
        let name = flow.client.settings.name
        present(
            SignInPrompt(
                title: Localized("Sign in with \(name)"), message: message, fields: [], submitLabel: "", link: link,
                waiting: Localized("Waiting for \(name)…"))
        ) { _ in }
    }

    private func conclude(_ outcome: Result<OpenIDIdentity, SignInError>) async {
        switch outcome {
        case .success(let identity):
            do throws(SignInError) { succeed(try await flow.accepted(identity)) } catch { fail(error) }
        case .failure(let error):
            fail(error)
        }
    }

    /// Waits for `web` to finish the sign-in filed under `key`, woken by it, for the link's lifetime at most.
    private static func waitForBrowser(_ key: String, flow: OpenIDTerminalFlow) async -> Result<OpenIDIdentity, SignInError> {
        let taken = TakenOutcome(flow.terminals, key)
        let outcome: TerminalSignInOutcome? = await withTaskGroup(of: TerminalSignInOutcome?.self) { group in
            group.addTask {
                // A wake with nothing to take (another host's, a stray) waits again.
                while !Task.isCancelled {
                    do { try await flow.wakeups.wait(for: key) { await taken.take() } } catch { return nil }
                    _ = await taken.take()
                    if let outcome = await taken.outcome { return outcome }
                }
                return nil
            }
            group.addTask { [clock = flow.clock] in
                try? await clock.sleep(for: .seconds(OpenIDTerminalFlow.lifetime))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch outcome {
        case .signedIn(let issuer, let subject, let email, let verified, let name)?:
            return .success(OpenIDIdentity(issuer: issuer, subject: subject, email: email, emailVerified: verified, name: name))
        case .refused(let why)?:
            return .failure(.failed(why))
        case nil:
            return .failure(Task.isCancelled ? .canceled : .failed("The link expired: nobody signed in within 10 minutes. Start again."))
        }
    }

    /// How a device flow ended without an identity: a sign-in's own failure, or the provider refusing the flow itself
    /// (its token endpoint's error), which the shop's link may get round.
    enum DeviceFailure: Error {
        case signIn(SignInError)
        case deviceFlowRefused(String)

        var signInError: SignInError {
            switch self {
            case .signIn(let error): error
            case .deviceFlowRefused(let why): .failed(why)
            }
        }
    }

    /// Asks the token endpoint at the provider's interval (longer when it says so) until the shopper finished.
    private static func followDevice(_ device: DeviceAuthorization, flow: OpenIDTerminalFlow) async -> Result<OpenIDIdentity, DeviceFailure> {
        let name = flow.client.settings.name
        var interval = device.interval
        while flow.dates.now() < device.expiresAt {
            do { try await flow.clock.sleep(for: interval) } catch { return .failure(.signIn(.canceled)) }
            let poll: DevicePoll
            do { poll = try await flow.client.pollDeviceToken(device) } catch {
                return .failure(.deviceFlowRefused("\(name) did not sign you in: \(error)"))
            }
            switch poll {
            case .pending: continue
            case .slowDown: interval += .seconds(5)
            case .idToken(let token):
                do { return .success(try await flow.client.verify(idToken: token, nonce: nil)) } catch {
                    return .failure(.signIn(.failed("\(name) did not sign you in: \(error)")))
                }
            case .denied: return .failure(.signIn(.failed("The sign-in was turned down at \(name).")))
            case .expired: return .failure(.signIn(Self.deviceCodeExpired))
            }
        }
        return .failure(.signIn(Self.deviceCodeExpired))
    }

    static let deviceCodeExpired = SignInError.failed("The code expired: nobody signed in within its time. Start again.")
}

/// The outcome of a terminal's sign-in, taken once from storage when there is one.
private actor TakenOutcome: LiveObject {
    private let terminals: any TerminalSignIns
    private let key: String
    private(set) var outcome: TerminalSignInOutcome?

    init(_ terminals: any TerminalSignIns, _ key: String) {
        self.terminals = terminals
        self.key = key
    }

    /// Takes the outcome if there is one now; true once there is.
    func take() async -> Bool {
        if outcome == nil { outcome = (try? await terminals.take(handleHash: key)) ?? nil }
        return outcome != nil
    }
}
