import Foundation
import ShopPorts
import ShopServices

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `storefront status`: asks a running instance's admin listener whether it is ready, and prints what it says.
public enum StatusCommands {
    /// What `/readyz` answers.
    struct Answer: Decodable {
        var status: String
        var checks: [ReadinessCheck]
    }

    /// Exits 0 when ready, 75 when not, 69 when nothing answers at `address`.
    public static func status(at address: ListenAddress, json: Bool) async throws {
        guard let url = URL(string: "http://\(address)/readyz") else {
            complain("\(address) is not an address to ask")
            throw ExitCodes.usage
        }
        let data: Data
        do {
            (data, _) = try await URLSession.shared.data(for: URLRequest(url: url, timeoutInterval: 5))
        } catch {
            complain("nothing answers at \(address): \(error.localizedDescription)")
            throw ExitCodes.cannotListen
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
            complain("\(address) answered something that is not storefront's /readyz")
            throw ExitCodes.cannotListen
        }
        if json {
            printSafely(String(decoding: data, as: UTF8.self))
        } else {
            printSafely(([answer.status] + answer.checks.map { "\($0.isReady ? "ok  " : "FAIL") \($0.name): \($0.detail)" }).joined(separator: "\n"))
        }
        if answer.status != "ready" { throw ExitCodes.temporaryFailure }
    }
}
