import Foundation
import ShopWebhookServer
import Testing

/// The webhook listener's answers to the provider: what its dashboard may show, and nothing of the shop's insides.
@Suite("The webhook listener's answers", .serialized, .ownThreads)
struct WebhookListenerTests {
    @Test func aDeliveryThatCannotBeAppliedNowIsA503ThatNamesNothingOfTheShop() async throws {
        let (bound, binding) = AsyncStream.makeStream(of: Int.self)
        let server = WebhookServer(host: "127.0.0.1", port: 0, log: { _ in }, listening: { binding.yield($0) }) { _, _ in
            WebhookServer.Answer(
                status: 503, log: "charge.refunded evt_1: not applied: SQLite error 10 on /var/lib/storefront/storefront.sqlite: disk I/O error")
        }
        let task = Task { try await server.run() }
        var iterator = bound.makeAsyncIterator()
        let port = try #require(await iterator.next())
        // The client blocks on its socket on a thread of its own, so the server's answer has the shared threads.
        let answer = try await onOwnThread {
            let client = try WebSocketTestClient(port: port)
            let body = #"{"id":"evt_1"}"#
            try client.sendRaw(
                "POST /webhooks/stripe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nStripe-Signature: t=1,v1=00\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            return client.read(until: "}")
        }
        await server.stop()
        _ = try? await task.value
        #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer)")
        #expect(answer.contains("send it again later") && !answer.contains("/var/lib") && !answer.contains("SQLite"), "\(answer)")
    }
}
