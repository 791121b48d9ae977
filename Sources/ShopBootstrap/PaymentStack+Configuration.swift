import Foundation
import ShopModels
import ShopPorts
import ShopStripe

extension StripeSettings {
    /// The configuration's Stripe settings, checked.
    public static func read(configuration: ShopConfiguration, environment: [String: String]) throws(Problem) -> StripeSettings {
        try read(
            apiBase: configuration.stripeAPIBase, secretKeyFile: configuration.stripeSecretKeyFile, returnURL: configuration.stripeReturnURL,
            rawCardData: configuration.stripeRawCardData, environment: environment
        )
    }

    /// The configured key alone, checked, whatever else the settings lack: whether the shop is live.
    public static func key(configuration: ShopConfiguration, environment: [String: String]) throws(Problem) -> StripeSecretKey {
        try read(
            apiBase: configuration.stripeAPIBase, secretKeyFile: configuration.stripeSecretKeyFile, returnURL: nil, rawCardData: true,
            environment: environment
        ).key
    }
}

extension PaymentStack {
    /// The payment side the configuration picks; Stripe's settings are checked first.
    public static func make(
        configuration: ShopConfiguration, environment: [String: String], ledger: any ChargeLedger, references: any ProviderReferenceRepository,
        currency: Currency, clock: any Clock<Duration>, latency: Duration, fault: FaultHook, log: @escaping @Sendable (String) -> Void
    ) throws(StripeSettings.Problem) -> PaymentStack {
        let choice: Choice =
            switch configuration.payments ?? .sandbox {
            case .sandbox: .sandbox
            case .stripe: .stripe(try StripeSettings.read(configuration: configuration, environment: environment))
            }
        return make(
            choice, ledger: ledger, references: references, currency: currency, clock: clock, latency: latency, reached: { fault.reached($0) },
            log: log)
    }
}

/// Test hook: STOREFRONT_FAULT=kill-<step> (or stop-<step>) makes the process kill itself at that
/// step of a purchase, as a power cut would, so fault tests can restart it; stop-… makes it stop
/// itself (SIGSTOP), as a paused laptop would, until SIGCONT. Steps: the backend's and Stripe's.
public struct FaultHook: Sendable {
    var step: String?
    var signal: Int32

    public init(environment: [String: String]) {
        let fault = environment["STOREFRONT_FAULT"] ?? ""
        signal = fault.hasPrefix("stop-") ? SIGSTOP : SIGKILL
        step = fault.isEmpty ? nil : String(fault.drop { $0 != "-" }.dropFirst())
    }

    public func reached(_ name: String) {
        // raise, not kill(getpid()): it signals this very thread, so the step goes no further
        // before the process stops or dies; kill may let this thread run on for a while.
        if name == step { raise(signal) }
    }
}
