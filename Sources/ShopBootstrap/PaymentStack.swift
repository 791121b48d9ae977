import Foundation
import ShopCredentialFile
import ShopModels
import ShopPorts
import ShopSandbox
import ShopStripe
import SystemPackage

/// The payment side of a shop, picked by configuration: the provider that vaults cards and makes
/// tokens, and the processor the merchant backend charges through.
public struct PaymentStack: Sendable {
    public var provider: any PaymentProvider
    public var processor: any ChargeProcessor
    /// What the back office gives money back through: the same provider.
    public var refunds: any RefundProcessor
    /// Gives back what the stack opened (Stripe's HTTP connections); call once, at the end.
    public var close: @Sendable () async -> Void
    /// The provider's webhook checked with the given signing secrets; nil for the sandbox, which sends none.
    public var webhook: (@Sendable (_ secrets: [String]) -> any ProviderWebhook)? = nil

    /// What the provider makes a token from for a saved card, with no payment sheet (the API's orders, renewals): the
    /// sandbox its card's id as its sheet gives it, Stripe the saved card (a PaymentMethod) itself.
    public func methodData(_ card: PaymentMethod) -> String {
        provider.mode == .sandbox ? SandboxProcessor.paymentData(for: card) : card.id
    }

    /// Which provider the shop takes payments with, and Stripe's settings when it is Stripe.
    public enum Choice: Sendable {
        case sandbox
        case stripe(StripeSettings)
    }

    /// The sandbox with its ledger in the shop's database, or Stripe with its references beside the orders.
    /// `reached` hears each step of a Stripe charge (fault tests stop the process there).
    public static func make(
        _ choice: Choice, ledger: any ChargeLedger, references: any ProviderReferenceRepository, currency: Currency, clock: any Clock<Duration>,
        latency: Duration, reached: @escaping @Sendable (String) -> Void = { _ in }, log: @escaping @Sendable (String) -> Void
    ) -> PaymentStack {
        var stack = unmetered(
            choice, ledger: ledger, references: references, currency: currency, clock: clock, latency: latency, reached: reached, log: log)
        let provider = stack.provider.mode == .sandbox ? "sandbox" : "stripe"
        stack.processor = MeteredChargeProcessor(wrapped: stack.processor, provider: provider)
        stack.refunds = MeteredRefundProcessor(wrapped: stack.refunds, provider: provider)
        return stack
    }

    /// A stack from its parts: a test's own client of the provider, or the sandbox's.
    public init(
        provider: any PaymentProvider, processor: any ChargeProcessor, refunds: any RefundProcessor, close: @escaping @Sendable () async -> Void,
        webhook: (@Sendable (_ secrets: [String]) -> any ProviderWebhook)? = nil
    ) {
        (self.provider, self.processor, self.refunds, self.close, self.webhook) = (provider, processor, refunds, close, webhook)
    }

    /// The sandbox's payments through `processor`, which a test keeps to read what it charged.
    public static func sandbox(_ processor: SandboxProcessor) -> PaymentStack {
        PaymentStack(provider: SandboxPaymentProvider(processor: processor), processor: processor, refunds: processor, close: {})
    }

    private static func unmetered(
        _ choice: Choice, ledger: any ChargeLedger, references: any ProviderReferenceRepository, currency: Currency, clock: any Clock<Duration>,
        latency: Duration, reached: @escaping @Sendable (String) -> Void, log: @escaping @Sendable (String) -> Void
    ) -> PaymentStack {
        switch choice {
        case .sandbox:
            return sandbox(SandboxProcessor(clock: clock, latency: latency, ledger: ledger))
        case .stripe(let settings):
            let client = StripeClient(key: settings.key, base: settings.base)
            let processor = StripeChargeProcessor(client: client, key: settings.key, references: references, returnURL: settings.returnURL) {
                reached($0.rawValue)
            }
            return PaymentStack(
                provider: StripePaymentProvider(
                    client: client, key: settings.key, references: references,
                    cardPage: settings.returnURL.map { (currency, $0) }, rawCardData: settings.rawCardData, onTypedCardsRefused: log
                ),
                processor: processor, refunds: processor,
                close: { try? await client.shutdown() },
                webhook: { StripeWebhook(secrets: $0, client: client, references: references) }
            )
        }
    }
}

/// The Stripe key and API address, checked before anything is opened.
///
/// The key comes from `STOREFRONT_STRIPE_SECRET_KEY` or from the file `stripe-secret-key-file`
/// names (one of them, not both), and is refused at once when it does not look like a Stripe key.
public struct StripeSettings: Sendable {
    public static let keyVariable = "STOREFRONT_STRIPE_SECRET_KEY"

    public var key: StripeSecretKey
    public var base: URL
    /// Where Stripe sends the shopper back to; needed unless cards are typed in the shop.
    public var returnURL: URL?
    /// Cards are typed in the shop and sent to Stripe (an account with raw card data access).
    public var rawCardData: Bool

    /// A setting that keeps `--payments stripe` from starting.
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Reads and checks the settings: the API address, the key (from the environment or `secretKeyFile`), where
    /// Stripe sends the shopper back, and whether cards are typed in the shop.
    public static func read(
        apiBase: URL?, secretKeyFile: FilePath?, returnURL: URL?, rawCardData: Bool?, environment: [String: String]
    ) throws(Problem) -> StripeSettings {
        let base: URL
        do { base = try StripeClient.validatedBase(apiBase ?? StripeClient.defaultBase) } catch {
            throw Problem(description: error.description)
        }
        let fromEnvironment = environment[keyVariable].flatMap { $0.isEmpty ? nil : $0 }
        let raw: String
        switch (fromEnvironment, secretKeyFile) {
        case (nil, nil):
            throw Problem(description: "--payments stripe needs a secret key: set \(keyVariable), or name a file with --stripe-secret-key-file")
        case (.some, .some):
            throw Problem(description: "both \(keyVariable) and a stripe-secret-key-file are set; keep one")
        case (let value?, nil):
            raw = value
        case (nil, let path?):
            raw = try readKeyFile(path)
        }
        let key: StripeSecretKey
        do { key = try StripeSecretKey(raw) } catch {
            throw Problem(description: error.description)
        }
        let rawCardData = rawCardData ?? false
        if let returnURL, !["https", "http"].contains(returnURL.scheme?.lowercased() ?? "") || returnURL.host == nil {
            throw Problem(description: "stripe-return-url must be a web address (https://…), got \"\(returnURL.absoluteString)\"")
        }
        if !rawCardData, returnURL == nil {
            throw Problem(
                description: """
                    --payments stripe takes cards on Stripe's own page, which sends the shopper back to a page of yours: \
                    set stripe-return-url (--stripe-return-url https://your-shop.example/thanks). Only if your Stripe account \
                    has raw card data access, turn on stripe-raw-card-data instead (docs/stripe.md)
                    """)
        }
        return StripeSettings(key: key, base: base, returnURL: returnURL, rawCardData: rawCardData)
    }

    /// The key file's text, through the same checks as the credential file: yours, mode 0600, not a link.
    private static func readKeyFile(_ path: FilePath) throws(Problem) -> String {
        let data: Data
        do {
            data = try ProtectedFile.read(path)
        } catch {
            let why =
                switch error {
                case .missing: "does not exist"
                case .notRegularFile: "is not a regular file"
                case .wrongOwner(let uid): "belongs to user \(uid), not to you"
                case .tooOpen(let mode): "can be read by others (mode \(String(mode, radix: 8))); chmod 600 it"
                case .io(let reason): "cannot be read: \(reason)"
                }
            throw Problem(description: "the Stripe secret key file \(path) \(why)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Problem(description: "the Stripe secret key file \(path) is not text")
        }
        return text
    }
}
