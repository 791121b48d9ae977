import AsyncHTTPClient
import Foundation
import NIOCore
import ShopPorts
import ShopServices

/// `storefront status`: asks a running instance's admin listener whether it is ready, and prints what it says.
public enum StatusCommands {
    /// What `/readyz` answers.
    struct Answer: Decodable {
        var status: String
        var checks: [ReadinessCheck]
    }

    /// Exits 0 when ready, 75 when not, 69 when nothing answers at `address`.
    public static func status(at address: ListenAddress, json: Bool) async throws {
        // AsyncHTTPClient, not URLSession: FoundationNetworking would link libcurl into the deployable static binary.
        let data: Data
        do {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://\(address)/readyz"), timeout: .seconds(5))
            data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch {
            complain("nothing answers at \(address): \(error)")
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
