import Foundation

/// Linux's `SO_PASSCRED` and `SCM_CREDENTIALS` (asm-generic/socket.h, linux/socket.h), which Glibc's module map does not
/// bring to Swift without `_GNU_SOURCE`.
let linuxPassCredentials: Int32 = 16
let linuxCredentialsMessage: Int32 = 2

/// Linux's `struct ucred`: who sent a datagram, as the kernel knows it.
struct SenderCredentials {
    var pid: pid_t
    var uid: uid_t
    var gid: gid_t
}

/// Which senders are this server's own: this user's processes descended from it (its session host's sessions, its
/// workers), each pid looked up once in /proc; a pid seen before is answered from memory (a few thousand at most).
struct RelaySenders {
    private var known: [pid_t: Bool] = [:]
    private let server = getpid()
    private let user = getuid()

    mutating func isOwn(_ sender: SenderCredentials) -> Bool {
        guard sender.uid == user else { return false }
        if let answer = known[sender.pid] { return answer }
        if known.count > 10_000 { known.removeAll() }
        let answer = Self.descends(sender.pid, from: server)
        known[sender.pid] = answer
        return answer
    }

    /// Whether `pid`'s parents lead to `ancestor` within a few generations (a session is the server's grandchild).
    static func descends(_ pid: pid_t, from ancestor: pid_t) -> Bool {
        var current = pid
        for _ in 0..<6 {
            if current == ancestor { return true }
            guard current > 1, let parent = parent(of: current) else { return false }
            current = parent
        }
        return false
    }

    /// The parent's pid from /proc/PID/stat (after the command's closing parenthesis, the state, then the ppid).
    private static func parent(of pid: pid_t) -> pid_t? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }
}
