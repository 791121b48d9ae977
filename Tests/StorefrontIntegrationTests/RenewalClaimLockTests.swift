import Foundation
import LiveObjects
import ShopModels
import ShopPorts
import StoragePostgres
import StorageRows
import StorefrontTesting
import Testing

/// The renewals' claim on PostgreSQL takes no subscription another transaction holds: with one subscription's row
/// locked by a `psql` session (`SELECT … FOR UPDATE`, held open), a claim returns at once with the other due one only,
/// so two workers on two hosts never charge one period twice. Deterministic: the lock is known held before the claim.
@Suite("Renewal claims skip a locked subscription", .ownThreads)
struct RenewalClaimLockTests {
    /// A `psql` reading its commands from a pipe the test writes, its answers read on a thread of its own.
    final class HeldSession: @unchecked Sendable, LiveObject {
        let process = Process()
        let input = Pipe()
        let output = Pipe()

        init(url: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["psql", url, "-At", "-v", "ON_ERROR_STOP=1"]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
        }

        func send(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

        /// Waits, on a thread of its own, until `psql` has printed `text`.
        func waitFor(_ text: String) async throws -> String {
            let handle = output.fileHandleForReading
            return try await onOwnThread {
                var seen = ""
                while !seen.contains(text) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    seen += String(decoding: chunk, as: UTF8.self)
                }
                return seen
            }
        }

        func end() {
            send("ROLLBACK;\n\\q\n")
            try? input.fileHandleForWriting.close()
            blockingWaitAllowed("waiting for psql to end")
            process.waitUntilExit()
        }
    }

    @Test func aClaimSkipsTheSubscriptionAnotherTransactionHolds() async throws {
        let fixture = try await PostgresFixture()
        let store = SQLSubscriptions(database: fixture.database)
        let now = Date(timeIntervalSince1970: 1_795_339_800)
        for id in ["sub-held", "sub-free"] {
            let subscription = Subscription(
                id: id, customerID: "ssh:SHA256:a", productID: "coffee-beans", quantity: 1, intervalWeeks: 2, renewsAt: now.addingTimeInterval(-60),
                cardID: "card_ok_visa_4242", cardDescription: "Visa ••4242", shipTo: Fixtures.jane, shippingMethodID: "standard")
            try await store.create(subscription, event: SubscriptionEvent(at: now, actor: "test", kind: "created", detail: ""))
        }
        let held = try HeldSession(url: fixture.url)
        defer { held.end() }
        held.send("BEGIN;\nSELECT id FROM subscription WHERE id = 'sub-held' FOR UPDATE;\n")
        let locked = try await held.waitFor("sub-held")
        try #require(locked.contains("sub-held"), "psql holds the row: \(locked)")

        // Without SKIP LOCKED the claim would wait on psql's lock until its call's deadline, and fail.
        let claimed = try await store.claimDue(at: now, limit: 10, worker: "host-b", leaseUntil: now.addingTimeInterval(600))
        #expect(claimed.map(\.id) == ["sub-free"], "the held one is skipped, not waited for")
    }
}
