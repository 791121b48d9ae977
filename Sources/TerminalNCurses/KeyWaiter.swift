import CNCurses
import Dispatch
import Foundation
import LiveObjects

/// Waits for keys on stdin on a thread of its own, and handles them on the main queue from that thread.
///
/// A dispatch source on the main queue costs every key two wake-ups: the kernel wakes dispatch's
/// manager thread, which then wakes a worker to drain the main queue. This thread is the one the
/// kernel wakes, and `syncOnMainQueue` runs the handler right on it while the main queue is
/// idle (waiting, as any main-queue work does, while it is not), so a key costs one wake-up.
///
/// Order of calls: `init` → `start` → the handler runs each time stdin is readable → `stop`, once,
/// from the handler or the main queue; the thread then ends without another call.
final class KeyWaiter: @unchecked Sendable {
    private let wake: (read: Int32, write: Int32)
    private let handler: @MainActor (_ bytesAvailable: Int) -> Void
    // Written on the main queue, read by the thread after each handler: the handler runs under the
    // main queue, so the two never overlap.
    private var isStopped = false

    /// `handler` gets the bytes waiting on stdin (0 with the terminal gone).
    init(handler: @escaping @MainActor (_ bytesAvailable: Int) -> Void) throws {
        wake = try makePipe()
        self.handler = handler
    }

    func start() {
        Thread { [self] in
            // Named from the thread itself: Foundation's `name`, set before the start, does not reach it here.
            sf_name_this_thread("storefront keys")
            run()
        }.start()
    }

    /// Ends the thread: it leaves its wait at once, or after the handler it is in returns.
    @MainActor
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    // Closed only when neither the thread nor the session holds the waiter: a descriptor closed
    // earlier could be reused, and `stop` would write into whatever file took its number.
    deinit {
        close(wake.read)
        close(wake.write)
    }

    private func run() {
        var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 { return }
            guard fds[0].revents != 0 else { continue }
            var available: Int32 = 0
            if ioctl(0, UInt(FIONREAD), &available) != 0 { available = 0 }
            let handler = self.handler
            var stopped = false
            syncOnMainQueue {
                MainActor.assumeIsolated {
                    handler(Int(available))
                    stopped = isStopped
                }
            }
            if stopped { return }
            // A terminal that hung up stays readable: the handler ended the session; never spin on it.
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && available == 0 { return }
        }
    }
}

extension KeyWaiter: LiveObject {}
