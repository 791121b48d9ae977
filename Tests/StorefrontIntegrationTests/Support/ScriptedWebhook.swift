import Foundation
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontTesting
import Testing

/// A webhook of the test's own: a delivery is `{"id": …, "type": …}` signed "valid", and what each event means is
/// scripted by id. An event the test did not script fails the test.
struct ScriptedWebhook: ProviderWebhook {
    let provider = "scripted"
    var notices: [String: ProviderNotice]
    /// Events whose provider cannot be reached: `notice` throws.
    var unreachable: Set<String> = []

    static func payload(_ id: String, type: String = "test.event") -> [UInt8] {
        Array(#"{"id":"\#(id)","type":"\#(type)"}"#.utf8)
    }

    func verify(payload: [UInt8], signature: String?, now: Date) throws(WebhookRefusal) -> ProviderEventHeader {
        guard signature == "valid" else { throw .badSignature("not signed \"valid\"") }
        let object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: String]
        guard let id = object?["id"], let type = object?["type"] else { throw .malformed("no id or type") }
        return ProviderEventHeader(id: id, type: type)
    }

    func notice(for payload: [UInt8]) async throws -> ProviderNotice {
        let id = ((try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: String])?["id"] ?? ""
        if unreachable.contains(id) { throw RefundFailure.unreachable("the provider is down") }
        guard let notice = notices[id] else {
            Issue.record("no notice scripted for event \(id)")
            throw RefundFailure.unreachable("unscripted")
        }
        return notice
    }
}

/// The provider's events on both databases: each applied once, whatever is sent again, and nothing changed by one
/// that is refused.

extension ProviderEventDesk {
    /// Delivers event `id` signed "valid", expects it kept, then runs one pass: what the pass did.
    func deliver(_ id: String, type: String = "test.event", sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Outcome] {
        let reply = await receive(payload: ScriptedWebhook.payload(id, type: type), signature: "valid")
        #expect(reply == .accepted(ProviderEventHeader(id: id, type: type)), sourceLocation: sourceLocation)
        return try await processDue()
    }
}
