import Foundation
import ShopBootstrap
import ShopPorts
import StorefrontTesting
import Testing

/// The terminal sign-ins and their wakeups on SQLite and PostgreSQL, as two hosts of one shop use them: a handle filed
/// by one is opened and finished by the other, whose wake ends the first one's wait; every step holds once.
@Suite("Terminal sign-ins and wakeups on both databases", .ownThreads)
struct TerminalSignInRepositoryTests {
    let hash = String(repeating: "ab", count: 32)
    let identity = TerminalSignInOutcome.signedIn(issuer: "https://id.example", subject: "u1", email: nil, emailVerified: false, name: nil)

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func aHandleIsOpenedFinishedAndTakenOnceAcrossHosts(_ kind: CodeSignInTests.Kind) async throws {
        let (terminal, web, _) = try await CodeSignInTests().storages(kind)
        let now = Date()
        try await terminal.terminalSignIns.file(handleHash: hash, provider: "mock", at: now)
        #expect(try await web.terminalSignIns.open(handleHash: "unknown", stateHash: "s0", at: now, lifetime: 600) == nil)
        #expect(
            try await web.terminalSignIns.open(handleHash: hash, stateHash: "s1", at: now.addingTimeInterval(601), lifetime: 600) == nil, "too old")
        #expect(try await web.terminalSignIns.open(handleHash: hash, stateHash: "s1", at: now, lifetime: 600) == "mock")
        // Opened again (the page reloaded): the later state is the one bound.
        #expect(try await web.terminalSignIns.open(handleHash: hash, stateHash: "s2", at: now, lifetime: 600) == "mock")
        #expect(try await web.terminalSignIns.handle(forState: "s1") == nil)
        #expect(try await web.terminalSignIns.handle(forState: "s2") == hash)
        #expect(try await terminal.terminalSignIns.take(handleHash: hash) == nil, "nothing to take while it goes on")

        // The wait's check runs once it listens: a wake sent after that is never missed.
        let (listening, heard) = AsyncStream.makeStream(of: Void.self)
        let woken = Task {
            try await terminal.wakeups.wait(for: hash) {
                heard.yield()
                return false
            }
        }
        #expect(try await web.terminalSignIns.finish(handleHash: hash, outcome: identity, at: now))
        #expect(try await !web.terminalSignIns.finish(handleHash: hash, outcome: .refused("again"), at: now), "it ends once")
        #expect(try await web.terminalSignIns.open(handleHash: hash, stateHash: "s3", at: now, lifetime: 600) == nil, "a finished link opens nothing")
        for await _ in listening { break }
        await web.wakeups.wake(hash)
        try await woken.value
        #expect(try await terminal.terminalSignIns.take(handleHash: hash) == identity)
        #expect(try await terminal.terminalSignIns.take(handleHash: hash) == nil, "taken once")
    }

    @Test(arguments: CodeSignInTests.Kind.allCases)
    func aWaitEndsByItsCheckOrItsCancel(_ kind: CodeSignInTests.Kind) async throws {
        let (storage, _, _) = try await CodeSignInTests().storages(kind)
        // What happened before the wait listened is found by its check: no wake needed.
        try await storage.wakeups.wait(for: hash) { true }
        let waiting = Task { try await storage.wakeups.wait(for: hash) { false } }
        waiting.cancel()
        await #expect(throws: (any Error).self) { try await waiting.value }
        // Another key's wake is not this wait's.
        let other = Task { try await storage.wakeups.wait(for: hash) { false } }
        await storage.wakeups.wake(String(repeating: "cd", count: 32))
        other.cancel()
        await #expect(throws: (any Error).self) { try await other.value }
    }
}
