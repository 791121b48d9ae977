import CNCurses
import Dispatch
import Foundation
import LiveObjects

/// Waits for keys on every session's descriptor of a worker with one thread and one epoll set, and handles those that
/// are ready together on the main queue, from that thread.
///
/// A dispatch source per descriptor costs every key three wake-ups: the kernel wakes dispatch's manager thread, which
/// wakes a thread to drain the main queue, whose handler pokes the manager again to re-arm the source. Here the kernel
/// wakes this thread, once for all the descriptors ready at that moment, and `syncOnMainQueue` runs their
/// handlers right on it while the main queue is idle, as `KeyWaiter` does for a process's own terminal. In a burst a
/// worker's 128 sessions cost a few wake-ups, not hundreds (docs/BENCHMARKS.md, "Sessions in workers").
///
/// Order of calls: `watch` a descriptor (the thread starts with the first) → its handler runs each time it is
/// readable → `stopWatching` before the descriptor is closed. The thread lives as long as the process.
@MainActor
final class DescriptorKeys {
    /// The worker's one waiter; every session in it runs on the main actor.
    static let shared = DescriptorKeys()

    /// One watched descriptor: what `stopWatching` is given.
    struct Watch: Hashable {
        fileprivate let descriptor: Int32
        /// Tells this watch from a later one of a descriptor number closed and reused meanwhile.
        fileprivate let generation: UInt32
    }

    private let poll: Int32
    private var handlers: [Int32: (generation: UInt32, handle: (_ bytesAvailable: Int) -> Void)] = [:]
    private var nextGeneration: UInt32 = 0
    private var isRunning = false

    private init() {
        poll = sf_keys_poll_create()
    }

    /// Calls `handler` on the main actor each time `descriptor` is readable, with the bytes waiting on it (0 once its
    /// other side has closed); nil when the descriptor cannot be waited on.
    func watch(_ descriptor: Int32, handler: @escaping (_ bytesAvailable: Int) -> Void) -> Watch? {
        nextGeneration &+= 1
        let watch = Watch(descriptor: descriptor, generation: nextGeneration)
        let key = UInt64(watch.generation) << 32 | UInt64(UInt32(bitPattern: descriptor))
        guard poll >= 0, sf_keys_poll_add(poll, descriptor, key) == 0 else { return nil }
        handlers[descriptor] = (watch.generation, handler)
        if !isRunning {
            isRunning = true
            Thread { [poll] in
                // Named from the thread itself (Foundation's `name` does not reach it here), for `top -H` and perf.
                sf_name_this_thread("session keys")
                Self.wait(on: poll)
            }.start()
        }
        return watch
    }

    /// Stops calling the watch's handler; before its descriptor is closed, so the number is out of the set.
    func stopWatching(_ watch: Watch) {
        guard handlers[watch.descriptor]?.generation == watch.generation else { return }
        handlers[watch.descriptor] = nil
        _ = sf_keys_poll_remove(poll, watch.descriptor)
    }

    /// Hands each batch of ready descriptors to their handlers on the main queue, for as long as the process runs.
    private nonisolated static func wait(on poll: Int32) {
        var keys = [UInt64](repeating: 0, count: 256)
        var hungUp = [Int32](repeating: 0, count: 256)
        while true {
            let count = sf_keys_poll_wait(poll, &keys, &hungUp, Int32(keys.count))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            let ready = (0..<Int(count)).map { (keys[$0], hungUp[$0] != 0) }
            syncOnMainQueue {
                MainActor.assumeIsolated { shared.handle(ready) }
            }
        }
    }

    private func handle(_ ready: [(key: UInt64, hungUp: Bool)]) {
        for (key, hungUp) in ready {
            let descriptor = Int32(bitPattern: UInt32(truncatingIfNeeded: key))
            // A watch stopped (and its number perhaps reused) after the wait returned is not called.
            guard let watched = handlers[descriptor], watched.generation == UInt32(truncatingIfNeeded: key >> 32) else { continue }
            var available: Int32 = 0
            if ioctl(descriptor, UInt(FIONREAD), &available) != 0 { available = 0 }
            // Readable with nothing waiting and not hung up: a read will say EAGAIN, never that the terminal went away.
            watched.handle(hungUp ? Int(available) : max(1, Int(available)))
            // A hung-up descriptor stays ready: out of the set at once, or each wait would return for it until the
            // session's end has run.
            if hungUp { stopWatching(Watch(descriptor: descriptor, generation: watched.generation)) }
        }
    }
}

extension DescriptorKeys: LiveObject {}
