import Foundation
import Testing

@testable import ShopMetrics

/// What a session's process may send its server: only the shop's own counters and timings, with exactly their labels.
@Suite("Metrics relay")
struct MetricsRelayTests {
    @Test func anUpdateTravelsAndReadsBack() throws {
        let text = MetricsRelay.encode(kind: "c", name: ShopMetrics.orders, dimensions: [("front", "ssh"), ("outcome", "paid")], amount: 1)
        let update = try #require(MetricsRelay.decode(text))
        #expect(update.name == "storefront_orders_total" && update.amount == 1 && update.dimensions.map(\.1) == ["ssh", "paid"])
        #expect(MetricsRelay.decode("t storefront_key_to_frame_seconds front=web 1200000")?.amount == 1_200_000)
    }

    @Test func eachLineOfABatchReadsBackAndABadLineIsDroppedAlone() {
        let lines = [
            MetricsRelay.encode(kind: "t", name: ShopMetrics.keyToFrame, dimensions: [("front", "ssh")], amount: 1_500_000),
            "c storefront_made_up_total front=ssh 1",
            MetricsRelay.encode(kind: "c", name: ShopMetrics.orders, dimensions: [("front", "ssh"), ("outcome", "paid")], amount: 2),
        ]
        let updates = MetricsRelay.decode(batch: lines.joined(separator: "\n"))
        #expect(updates.map(\.name) == [ShopMetrics.keyToFrame, ShopMetrics.orders])
        #expect(updates.map(\.amount) == [1_500_000, 2])
    }

    @Test(arguments: [
        "c storefront_made_up_total front=ssh 1",  // not a metric of the shop's
        "c storefront_orders_total front=ssh 1",  // a label missing
        "c storefront_orders_total outcome=paid,front=ssh 1",  // labels in another order
        "c storefront_orders_total front=ssh,outcome=SF-000123\u{1B}[2J 1",  // a label value that is no label
        "c storefront_orders_total front=ssh,outcome=paid -5",  // a counter going back
        "t storefront_orders_total front=ssh,outcome=paid 5",  // a timing of a counter
        "c storefront_sessions_open front=ssh 5",  // a gauge: the server's own
        "c storefront_orders_total front=ssh,outcome=paid 99999999999999999999",  // a number past any bound
        "c storefront_orders_total front=ssh,outcome=x123 1",  // a value outside the label's fixed set
        "c storefront_orders_total front=ftp,outcome=paid 1",  // a front the shop has not
        "c storefront_sessions_refused_total front=ssh,reason=full 1",  // a label no session sends
    ])
    func anythingElseIsDropped(_ text: String) {
        #expect(MetricsRelay.decode(text) == nil)
    }

    /// Only the server's own processes are heard: this user's, descended from it.
    @Test func aSenderIsTheServersOwnOnlyWhenItDescendsFromIt() {
        #expect(RelaySenders.descends(getpid(), from: getpid()))
        #expect(RelaySenders.descends(getpid(), from: getppid()), "a child of its parent")
        #expect(!RelaySenders.descends(getppid(), from: getpid()), "a parent is not a child")
        #expect(!RelaySenders.descends(1, from: getpid()))
        var senders = RelaySenders()
        let own = senders.isOwn(SenderCredentials(pid: getpid(), uid: getuid(), gid: getgid()))
        let otherUser = senders.isOwn(SenderCredentials(pid: getpid(), uid: getuid() &+ 1, gid: getgid()))
        #expect(own && !otherUser)
    }
}
