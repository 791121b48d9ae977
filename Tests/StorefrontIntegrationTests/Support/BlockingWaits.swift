import Foundation
import Testing

// The test helpers' blocking waits, each checked to run on a thread of the test's own (see `OwnThreads`).

/// Records an issue when a blocking wait is about to hold a thread of the cooperative pool or the main thread.
///
/// Every blocking wait of the test helpers calls this first, so a suite without `.ownThreads`, or a wait inside a
/// `Task {}` (which does not inherit the preference), is named at once rather than starving other tests under load.
func blockingWaitAllowed(_ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
    // Outside a test (a cluster removed at exit) nothing else waits.
    guard !OwnThreads.isCurrent, Test.current != nil else { return }
    Issue.record(
        "\(what()) blocks a thread the other tests share: give the suite the .ownThreads trait", sourceLocation: sourceLocation)
}

/// Waits for the child `pid` to end and reaps it; its raw wait status (see `shellStatus`).
func reap(_ pid: pid_t, sourceLocation: SourceLocation = #_sourceLocation) -> Int32 {
    blockingWaitAllowed("waiting for process \(pid) to end", sourceLocation: sourceLocation)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
}

/// Waits with poll(2) until some of `descriptors` can be read (or have closed), or `deadline` passes.
///
/// Returns the ready ones; empty once the deadline has passed. A signal that ends the wait early (a child of the
/// suite ending) waits again.
func waitReadable(_ descriptors: [Int32], before deadline: ContinuousClock.Instant, sourceLocation: SourceLocation = #_sourceLocation) -> [Int32] {
    blockingWaitAllowed("waiting to read \(descriptors)", sourceLocation: sourceLocation)
    while true {
        let remaining = deadline - .now
        guard remaining > .zero else { return [] }
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
        let ready = poll(&polled, nfds_t(polled.count), Int32(max(1, min(milliseconds, 60_000))))
        if ready > 0 { return polled.filter { $0.revents != 0 }.map(\.fd) }
        if ready < 0 && errno != EINTR { return [] }
    }
}

/// Signals the child `pid` (SIGKILL unless told) and reaps it, from any thread: for a deinit, whose program ends at once.
func killAndReap(_ pid: pid_t, signal: Int32 = SIGKILL) {
    kill(pid, signal)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
}

/// How reading until some text ended.
enum ReadEnd: Equatable { case found, timedOut, closed }

/// Reads `descriptor` into `received` until `found` holds for what has arrived, `deadline` passes, or it ends.
func read(
    _ descriptor: Int32, into received: inout [UInt8], before deadline: ContinuousClock.Instant, sourceLocation: SourceLocation = #_sourceLocation,
    until found: (String) -> Bool
) -> ReadEnd {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while !found(String(decoding: received, as: UTF8.self)) {
        guard !waitReadable([descriptor], before: deadline, sourceLocation: sourceLocation).isEmpty else { return .timedOut }
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        if count > 0 {
            received += buffer.prefix(count)
        } else if !(count < 0 && (errno == EINTR || errno == EAGAIN)) {
            return .closed
        }
    }
    return .found
}
