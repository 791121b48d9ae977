import Glibc

/// A new pipe's two ends; `nonBlocking` sets O_NONBLOCK on both (a signal handler's write must never block).
func makePipe(nonBlocking: Bool = false) throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw TerminalError.startFailed("pipe: \(String(cString: strerror(errno)))") }
    if nonBlocking {
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
    }
    return (fds[0], fds[1])
}
