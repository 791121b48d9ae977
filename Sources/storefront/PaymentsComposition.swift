import ArgumentParser
import ShopBootstrap
import ShopServices

extension StripeSettings {
    /// The configuration's Stripe settings, checked; a problem is told on stderr and exits 78.
    static func load(configuration: ShopConfiguration, environment: [String: String]) throws -> StripeSettings {
        try configuringPayments { () throws(Problem) in try read(configuration: configuration, environment: environment) }
    }
}

/// Runs `make`; payment settings that cannot be used are told on stderr and end the command with 78.
func configuringPayments<T>(_ make: () throws(StripeSettings.Problem) -> T) throws -> T {
    do {
        return try make()
    } catch {
        complain(error.description)
        throw ExitCodes.configError
    }
}

extension ServiceStartFailure {
    /// Tells the failure on stderr; returns the exit code to end with (docs/exit-codes.md).
    func told() -> ExitCode {
        complain(description)
        switch kind {
        case .configuration: return ExitCodes.configError
        case .cannotListen: return ExitCodes.cannotListen
        case .cannotCreate: return ExitCodes.cannotCreate
        case .system: return ExitCodes.systemError
        case .usage: return ExitCodes.usage
        case .io: return ExitCodes.ioError
        }
    }
}
