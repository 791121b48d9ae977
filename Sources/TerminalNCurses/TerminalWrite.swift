import Glibc

/// Writes every byte, through short writes, interruptions and a full non-blocking descriptor; false, with `errno`
/// saying why, when the descriptor refuses (the terminal gone, a full disk), which the key reader notices as end of input.
@discardableResult
public func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
    bytes.withUnsafeBufferPointer { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written > 0 {
                offset += written
                continue
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN {
                var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 1000)
                continue
            }
            return false
        }
        return true
    }
}

/// Writes `text`'s UTF-8 bytes, as `writeAll(_:to:)` does.
@discardableResult
public func writeAll(_ text: String, to fd: Int32) -> Bool { writeAll(Array(text.utf8), to: fd) }
