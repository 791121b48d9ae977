import Glibc

/// Writes every byte, waiting out a full non-blocking descriptor; gives up when the terminal is gone,
/// which the key reader notices as end of input.
func writeAll(_ bytes: [UInt8], to fd: Int32) {
    bytes.withUnsafeBufferPointer { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written > 0 { offset += written; continue }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN {
                var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 1000)
                continue
            }
            return
        }
    }
}

/// Writes `text`'s UTF-8 bytes, as `writeAll(_:to:)` does.
func writeAll(_ text: String, to fd: Int32) { writeAll(Array(text.utf8), to: fd) }
