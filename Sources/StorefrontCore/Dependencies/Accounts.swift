import Foundation
import ShopLanguages
import ShopModels
import ShopPorts

/// Who is signed in, and with which identity provider.
public struct SignedInAccount: Hashable, Sendable {
    public enum Provider: String, Hashable, Sendable {
        case sandboxID = "sandbox-id"
        case sshKey = "ssh"
        /// The shop's own account, signed in by an emailed code: the user id is the account's.
        case account
    }
    public var provider: Provider
    public var userID: String
    /// The key carts, wallets and orders are kept under: the account this way in reaches, which for a key another key
    /// made is that key's customer id.
    public var customerID: String

    public init(provider: Provider, userID: String, customerID: String? = nil) {
        self.provider = provider
        self.userID = userID
        self.customerID = customerID ?? (provider == .account ? userID : "\(provider.rawValue):\(userID)")
    }
}

/// Sign-in with an interactive identity provider (Sandbox ID, an emailed code): its controller factory, its account
/// side, where its tokens are kept, and what kind of account it signs in to.
public struct SignInServices: Sendable {
    public var makeController: SignInControllerFactory
    public var provider: any SignInProviding
    /// Where the tokens are kept between launches; nil where the sign-in keeps none (a key joining an account).
    public var auth: AuthManager?
    public var kind: SignedInAccount.Provider
    /// The provider's name in what the shopper reads ("Sandbox ID", "an emailed code").
    public var name: String
    public init(
        makeController: @escaping SignInControllerFactory, provider: any SignInProviding, auth: AuthManager?,
        kind: SignedInAccount.Provider = .sandboxID,
        name: String = "Sandbox ID"
    ) {
        self.makeController = makeController
        self.provider = provider
        self.auth = auth
        self.kind = kind
        self.name = name
    }
}

/// Everything about accounts the view model needs: wallets, profiles, sign-in, and who was signed in at launch.
public struct AccountDependencies: Sendable {
    public var wallets: any WalletRepository
    /// Shared with the device wallet the payment sheet reads; each checkout points it at the customer paying.
    public var walletOwner: WalletOwner
    public var profiles: any AccountProfileRepository
    /// Nil where the identity is fixed and there is nothing to sign in to (an SSH key).
    public var signIn: SignInServices?
    /// The account the launch check kept signed in, or nil for a guest.
    public var signedIn: SignedInAccount?
    /// What the launch check has to tell the shopper, such as a revoked sign-in.
    public var launchNotice: Localized?
    /// The guest's customer id: the local user.
    public var guestID: String
    public var dates: DateSource
    /// The API's tokens, made and revoked on the account screen by a signed-in shopper; nil where there is no API.
    public var apiTokens: APITokenAccess?
    /// The account's keys, providers and sessions, listed and removed on the account screen; nil for a guest shop.
    public var waysIn: WaysInAccess?

    public init(
        wallets: any WalletRepository, walletOwner: WalletOwner, profiles: any AccountProfileRepository, signIn: SignInServices?,
        signedIn: SignedInAccount? = nil, launchNotice: Localized? = nil, guestID: String, dates: DateSource, apiTokens: APITokenAccess? = nil,
        waysIn: WaysInAccess? = nil
    ) {
        self.waysIn = waysIn
        self.apiTokens = apiTokens
        self.wallets = wallets
        self.walletOwner = walletOwner
        self.profiles = profiles
        self.signIn = signIn
        self.signedIn = signedIn
        self.launchNotice = launchNotice
        self.guestID = guestID
        self.dates = dates
    }
}

/// The launch check: is the stored sign-in still good?
///
/// Order of calls: stored session → `credentialState` (revoked or not found: delete the tokens,
/// sign out) → `verifyAccessToken` (valid: signed in) → otherwise `refresh` (new tokens stored,
/// or signed out when the refresh fails).
public enum LaunchCheck {
    public struct Outcome: Equatable, Sendable {
        public var account: SignedInAccount?
        public var notice: String?
        public init(account: SignedInAccount?, notice: String?) {
            self.account = account
            self.notice = notice
        }
    }

    public static func run(services: SignInServices) async -> Outcome {
        guard let auth = services.auth else { return Outcome(account: nil, notice: nil) }
        let session: AuthManager.StoredSignIn?
        do {
            session = try await auth.storedSession()
        } catch {
            // The tokens stay where they are: the shopper can fix the file and start again.
            return Outcome(account: nil, notice: "You are shopping as a guest: \(error)")
        }
        guard let session else { return Outcome(account: nil, notice: nil) }
        let account = SignedInAccount(provider: services.kind, userID: session.userID)
        switch await services.provider.credentialState(forUserID: session.userID) {
        case .revoked:
            try? await auth.clear()
            return Outcome(account: nil, notice: "Your \(services.name) sign-in was revoked, so you were signed out.")
        case .notFound:
            try? await auth.clear()
            return Outcome(account: nil, notice: "\(services.name) no longer knows your account, so you were signed out.")
        case .authorized:
            break
        }
        if case .valid(let user) = await services.provider.verifyAccessToken(session.tokens.accessToken), user == session.userID {
            return Outcome(account: account, notice: nil)
        }
        do {
            let tokens = try await services.provider.refresh(refreshToken: session.tokens.refreshToken)
            try await auth.save(tokens, userID: session.userID)
            return Outcome(account: account, notice: nil)
        } catch let error as SignInError {
            try? await auth.clear()
            if case .failed(let why) = error { return Outcome(account: nil, notice: why) }
            return Outcome(account: nil, notice: "Your sign-in expired. Sign in again.")
        } catch {
            return Outcome(account: nil, notice: "Your sign-in could not be saved: \(error)")
        }
    }
}
