import Foundation
import LiveObjects
import Synchronization

/// The browser sessions open now, each with a way to end it from outside (a stop).
final class WebSessionRegistry: Sendable {
    private struct Entry {
        var stop: AsyncStream<WebSessionEnding>.Continuation
        var signedIn: WebSignedIn?
    }

    private let state = Mutex((next: 1, open: [Int: Entry]()))

    /// Registers a session (signed in, or a guest's): its number for the log, and the stream its relay watches for an
    /// ending from outside.
    func add(signedIn: WebSignedIn? = nil) -> (Int, AsyncStream<WebSessionEnding>) {
        let (stream, continuation) = AsyncStream.makeStream(of: WebSessionEnding.self)
        let number = state.withLock { state in
            defer { state.next += 1 }
            state.open[state.next] = Entry(stop: continuation, signedIn: signedIn)
            return state.next
        }
        return (number, stream)
    }

    /// The open sessions that hold a sign-in, by number.
    func signedIn() -> [(number: Int, signedIn: WebSignedIn)] {
        state.withLock { state in state.open.compactMap { number, entry in entry.signedIn.map { (number, $0) } } }
    }

    /// Ends session `number` from outside, if it is still open.
    func end(_ number: Int, _ reason: WebSessionEnding) {
        state.withLock { $0.open[number] }?.stop.yield(reason)
    }

    func remove(_ number: Int) {
        _ = state.withLock { $0.open.removeValue(forKey: number) }
    }

    var count: Int { state.withLock { $0.open.count } }

    func endAll(_ reason: WebSessionEnding) {
        for entry in state.withLock({ Array($0.open.values) }) { entry.stop.yield(reason) }
    }
}

extension WebSessionRegistry: LiveObject {}
