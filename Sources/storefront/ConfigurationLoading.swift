import ArgumentParser
import ShopBootstrap

extension PaymentsChoice: ExpressibleByArgument {}

extension ShopConfiguration {
    /// Loads the file and environment for a command; a bad one is told on stderr and exits 78.
    static func loadForCommand(environment: [String: String]) throws -> ShopConfiguration {
        do {
            return try load(environment: environment)
        } catch let error as ConfigurationError {
            complain("bad configuration: \(error)")
            throw ExitCodes.configError
        }
    }

    /// Command-line values over the file's and the environment's, each typed by `set`; a bad one is told and exits 64.
    mutating func apply(flags: [(key: String, value: String?)]) throws {
        for case let (key, value?) in flags {
            do { try set(key, to: value, source: "--\(key)", line: nil) } catch {
                complain("\(error)")
                throw ExitCodes.usage
            }
        }
    }
}
