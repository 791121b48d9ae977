import Foundation
import Synchronization
import StoreClients
import StoreModels
import StorefrontCore

/// A payment-sheet controller that records what it was asked and forwards to its delegate like the real one.
@MainActor
public final class PaymentAuthorizationControllerSpy: PaymentAuthorizationControlling {
    public weak var delegate: (any PaymentAuthorizationControllerDelegate)?
    public let request: PaymentRequest
    public var options: PaymentSheetOptions?
    /// The payment handed to the delegate when the shopper confirms.
    public var payment: Payment
    public private(set) var calls: [String] = []
    public private(set) var authorizationResults: [PaymentAuthorizationResult] = []

    public init(request: PaymentRequest, options: PaymentSheetOptions? = Fixtures.sheetOptions, payment: Payment = Fixtures.payment) {
        self.request = request
        self.options = options
        self.payment = payment
    }

    public func present() async -> PaymentSheetOptions? {
        calls.append("present")
        return options
    }

    public func selectPaymentMethod(_ method: PaymentMethod) async -> PaymentRequestUpdate {
        calls.append("selectPaymentMethod(\(method.id))")
        payment.method = method
        return await delegate?.paymentAuthorizationController(self, didSelectPaymentMethod: method) ?? PaymentRequestUpdate(summaryItems: request.summaryItems)
    }

    public func selectShippingContact(_ contact: Contact) async -> ShippingContactUpdate {
        calls.append("selectShippingContact(\(contact.id))")
        payment.shippingContact = contact
        return await delegate?.paymentAuthorizationController(self, didSelectShippingContact: contact) ?? ShippingContactUpdate(summaryItems: request.summaryItems)
    }

    public func selectShippingMethod(_ method: ShippingMethod) async -> PaymentRequestUpdate {
        calls.append("selectShippingMethod(\(method.id))")
        payment.shippingMethod = method
        return await delegate?.paymentAuthorizationController(self, didSelectShippingMethod: method) ?? PaymentRequestUpdate(summaryItems: request.summaryItems)
    }

    public func authorize() async -> PaymentAuthorizationResult {
        calls.append("authorize")
        guard let delegate else { return .failure("no delegate") }
        let result = await delegate.paymentAuthorizationController(self, didAuthorizePayment: payment)
        authorizationResults.append(result)
        return result
    }

    public func dismiss() async {
        calls.append("dismiss")
        await delegate?.paymentAuthorizationControllerDidFinish(self)
    }
}

/// A `PaymentAuthorization` whose answers are set by the test and whose factory records every controller it made.
@MainActor
public final class PaymentAuthorizationSpy {
    public var canMakePayments = true
    public var supportsNetworks = true
    public private(set) var requests: [PaymentRequest] = []
    public private(set) var controllers: [PaymentAuthorizationControllerSpy] = []
    public var options: PaymentSheetOptions? = Fixtures.sheetOptions

    public init() {}

    public var authorization: PaymentAuthorization {
        let canPay = canMakePayments, networks = supportsNetworks
        return PaymentAuthorization(
            canMakePayments: { canPay },
            canMakePaymentsUsingNetworks: { _ in networks },
            makeController: { [weak self] request in
                guard let self else { return nil }
                self.requests.append(request)
                guard request.validationFailure == nil else { return nil }
                let controller = PaymentAuthorizationControllerSpy(request: request, options: self.options)
                self.controllers.append(controller)
                return controller
            }
        )
    }
}

/// A payment provider that answers with a fixed result and counts calls.
public final class PaymentProviderStub: PaymentProvider {
    private let result: Result<PaymentToken, PaymentProviderError>
    private let vaultResult: Result<PaymentMethod, PaymentProviderError>
    private let calls = Mutex<[Payment]>([])
    private let vaulted = Mutex<[CardDetails]>([])

    public init(
        result: Result<PaymentToken, PaymentProviderError> = .success(PaymentToken(id: "tok_stub", paymentMethod: Fixtures.visa)),
        vaultResult: Result<PaymentMethod, PaymentProviderError> = .success(Fixtures.visa)
    ) {
        self.result = result
        self.vaultResult = vaultResult
    }

    public var payments: [Payment] { calls.withLock { $0 } }
    /// The cards sent to the vault, in order.
    public var vaultedCards: [CardDetails] { vaulted.withLock { $0 } }

    public func vault(_ card: CardDetails) async throws(PaymentProviderError) -> PaymentMethod {
        vaulted.withLock { $0.append(card) }
        return try vaultResult.get()
    }

    public func createToken(for payment: Payment) async throws(PaymentProviderError) -> PaymentToken {
        calls.withLock { $0.append(payment) }
        return try result.get()
    }
}

/// A merchant backend that plays back scripted results in order and records each call.
public final class MerchantBackendSpy: MerchantBackend {
    public struct Call: Hashable, Sendable {
        public var tokenID: String
        public var total: Money
        public var idempotencyKey: String
    }

    private let script: Mutex<[Result<OrderConfirmation, MerchantBackendError>]>
    private let recorded = Mutex<[Call]>([])

    public init(results: [Result<OrderConfirmation, MerchantBackendError>]) {
        script = Mutex(results)
    }

    public var calls: [Call] { recorded.withLock { $0 } }

    public func processPayment(token: PaymentToken, order: OrderDraft, idempotencyKey: String) async throws(MerchantBackendError) -> OrderConfirmation {
        recorded.withLock { $0.append(Call(tokenID: token.id, total: order.totals.total, idempotencyKey: idempotencyKey)) }
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next else { throw .unavailable("no scripted result") }
        return try next.get()
    }
}

/// A navigator that records destinations.
@MainActor
public final class NavigatorSpy: Navigator {
    public private(set) var destinations: [Destination] = []
    public init() {}
    public func navigate(to destination: Destination) { destinations.append(destination) }
}

/// A credential store in memory that records every write and delete, in order.
public final class CredentialStoreSpy: CredentialStore {
    public enum Operation: Hashable, Sendable {
        case set(key: String, value: String)
        case remove(key: String)
    }

    private let values = Mutex<[String: String]>([:])
    private let log = Mutex<[Operation]>([])
    public init() {}

    public var operations: [Operation] { log.withLock { $0 } }
    public func string(forKey key: String) throws -> String? { values.withLock { $0[key] } }
    public func set(_ value: String, forKey key: String) throws {
        values.withLock { $0[key] = value }
        log.withLock { $0.append(.set(key: key, value: value)) }
    }
    public func removeValue(forKey key: String) throws {
        _ = values.withLock { $0.removeValue(forKey: key) }
        log.withLock { $0.append(.remove(key: key)) }
    }
}

/// A credential a test can build (the real one comes from an identity provider).
public struct TestCredential: SignInCredential, Equatable {
    public var user: String
    public var email: String?
    public var fullName: String?
    public var identityToken: String?
    public var tokens: SessionTokens?
    public init(user: String, email: String? = nil, fullName: String? = nil, identityToken: String? = nil, tokens: SessionTokens? = Fixtures.tokens) {
        self.user = user
        self.email = email
        self.fullName = fullName
        self.identityToken = identityToken
        self.tokens = tokens
    }
}

/// An identity provider's account side that answers as the test says and records what it was asked.
public final class SignInProviderStub: SignInProviding {
    public struct Answers: Sendable {
        public var credentialState: CredentialState = .authorized
        public var accessToken: AccessTokenCheck = .valid(user: "user-1")
        public var identityToken: AccessTokenCheck = .valid(user: "user-1")
        public var refresh: Result<SessionTokens, SignInError> = .success(Fixtures.refreshedTokens)
        public init() {}
    }
    private let answers: Mutex<Answers>
    private let log = Mutex<[String]>([])

    public init(_ answers: Answers = Answers()) { self.answers = Mutex(answers) }

    /// "credentialState(user-1)", "verifyAccessToken", "refresh(rt-1)", "revoke(rt-1)", in order.
    public var calls: [String] { log.withLock { $0 } }

    public func credentialState(forUserID user: String) async -> CredentialState {
        log.withLock { $0.append("credentialState(\(user))") }
        return answers.withLock { $0.credentialState }
    }
    public func verifyAccessToken(_ token: String) async -> AccessTokenCheck {
        log.withLock { $0.append("verifyAccessToken") }
        return answers.withLock { $0.accessToken }
    }
    public func verifyIdentityToken(_ token: String, nonce: String?) async -> AccessTokenCheck {
        log.withLock { $0.append("verifyIdentityToken(\(nonce ?? "nil"))") }
        return answers.withLock { $0.identityToken }
    }
    public func refresh(refreshToken: String) async throws(SignInError) -> SessionTokens {
        log.withLock { $0.append("refresh(\(refreshToken))") }
        return try answers.withLock { $0.refresh }.get()
    }
    public func revoke(refreshToken: String) async {
        log.withLock { $0.append("revoke(\(refreshToken))") }
    }
}

/// A sign-in controller that completes as the test says when asked to perform.
@MainActor
public final class SignInControllerSpy: SignInAuthorizationControlling {
    public weak var delegate: (any SignInAuthorizationControllerDelegate)?
    public weak var presentationContextProvider: (any SignInPresentationContextProviding)?
    public let requests: [SignInRequest]
    public let outcome: Result<TestCredential, SignInError>
    public private(set) var performCount = 0

    public init(requests: [SignInRequest], outcome: Result<TestCredential, SignInError>) {
        self.requests = requests
        self.outcome = outcome
    }

    public func performRequests() {
        performCount += 1
        switch outcome {
        case .success(let credential): delegate?.signInController(self, didCompleteWith: credential)
        case .failure(let error): delegate?.signInController(self, didCompleteWith: error)
        }
    }
}

/// The factory side: hands out a fresh spy per request and keeps them all.
@MainActor
public final class SignInControllerFactorySpy {
    public private(set) var made: [SignInControllerSpy] = []
    public var outcome: Result<TestCredential, SignInError>

    public init(outcome: Result<TestCredential, SignInError>) { self.outcome = outcome }

    public var factory: SignInControllerFactory {
        { [weak self] requests in
            let spy = SignInControllerSpy(requests: requests, outcome: self?.outcome ?? .failure(.canceled))
            self?.made.append(spy)
            return spy
        }
    }
}

/// A catalog that counts reads and the largest page asked for, to prove screens hold only a window.
public final class CatalogRepositorySpy: CatalogRepository {
    private let base: any CatalogRepository
    private let stats = Mutex<(pages: Int, largestLimit: Int, counts: Int)>((0, 0, 0))

    public init(wrapping base: any CatalogRepository) { self.base = base }

    public var store: StoreProfile { base.store }
    public var pageReads: Int { stats.withLock { $0.pages } }
    public var largestLimit: Int { stats.withLock { $0.largestLimit } }
    public var countReads: Int { stats.withLock { $0.counts } }

    public func count(matching query: String) throws -> Int {
        stats.withLock { $0.counts += 1 }
        return try base.count(matching: query)
    }

    public func page(matching query: String, offset: Int, limit: Int) throws -> [Product] {
        stats.withLock { $0.pages += 1; $0.largestLimit = max($0.largestLimit, limit) }
        return try base.page(matching: query, offset: offset, limit: limit)
    }

    public func product(id: ProductID) throws -> Product? { try base.product(id: id) }
}

extension Fixtures {
    /// Tokens as a provider issues them at the fixed date: access for an hour, refresh for 30 days.
    public static let tokens = SessionTokens(
        accessToken: "at-1", accessTokenExpiresAt: fixedDates.now().addingTimeInterval(3_600),
        refreshToken: "rt-1", refreshTokenExpiresAt: fixedDates.now().addingTimeInterval(30 * 86_400)
    )
    public static let refreshedTokens = SessionTokens(
        accessToken: "at-2", accessTokenExpiresAt: fixedDates.now().addingTimeInterval(3_600),
        refreshToken: "rt-2", refreshTokenExpiresAt: fixedDates.now().addingTimeInterval(30 * 86_400)
    )
    public static let visa = PaymentMethod(id: "card_ok_visa_4242", network: .visa, lastFour: "4242", expiry: CardExpiry(month: 12, year: 2034), displayName: "Test: succeeds")
    public static let jane = Contact(
        id: "contact-jane", name: "Jane Appleseed", email: "jane@example.com", phone: "+1 555 0100",
        address: PostalAddress(street: "1 Loop Road", city: "Cupertino", postalCode: "95014", countryCode: "US")
    )
    public static let standardShipping = StoreProfile.standard().shippingMethods[0]
    public static let sheetOptions = PaymentSheetOptions(paymentMethods: [visa], contacts: [jane], selectedPaymentMethod: visa, selectedContact: jane)
    public static let payment = Payment(method: visa, methodData: "sandbox:card_ok_visa_4242", shippingContact: jane, shippingMethod: standardShipping, transactionIdentifier: "txn-1")
    public static func confirmation(_ number: String = "SF-000042", total: Money = Money(minorUnits: 0, currency: .usd)) -> OrderConfirmation {
        OrderConfirmation(orderNumber: number, total: total)
    }
}
