import Foundation
import Testing

/// The processes of this machine, read from /proc.
enum ProcessTree {
    /// The child of `parent` whose command line contains `name`.
    static func child(of parent: pid_t, named name: String) -> pid_t? {
        children(of: parent, named: name).first
    }

    /// Every child of `parent` whose command line contains `name` ("" for every child).
    static func children(of parent: pid_t, named name: String = "") -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.range(of: ")", options: .backwards),
                stat[close.upperBound...].split(separator: " ")[1] == "\(parent)",
                let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
            else { return false }
            return name.isEmpty || String(decoding: command, as: UTF8.self).contains(name)
        }
    }

    /// What each of `pid`'s descriptors is open on, as "fd → target" (a file's path, `socket:[inode]`, …).
    static func descriptorTargets(of pid: pid_t) -> Set<String> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return Set(entries.map { "\($0) → \((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "?")" })
    }

    /// The state letter /proc gives `pid` ("R", "S", "T" for stopped, …); nil once it is gone.
    static func state(of pid: pid_t) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.range(of: ")", options: .backwards)
        else { return nil }
        return stat[close.upperBound...].split(separator: " ").first?.first
    }

    /// Stops `pid` (SIGSTOP) and waits until the kernel has stopped it: until then a signal sent after it, such as
    /// SIGTERM with its lower number, can still be delivered first. Throws when it is not stopped within `timeout`.
    static func stop(_ pid: pid_t, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) throws {
        blockingWaitAllowed("waiting for process \(pid) to stop", sourceLocation: sourceLocation)
        kill(pid, SIGSTOP)
        guard waitUntil(timeout: timeout, { state(of: pid) == "T" }) else {
            Issue.record(
                "process \(pid) not stopped after \(timeout) (state \(state(of: pid).map(String.init) ?? "gone"))", sourceLocation: sourceLocation)
            throw TmuxError(message: "process \(pid) not stopped")
        }
    }

    /// Reads /proc until `holds` (a state nothing announces: a process stopped, a child forked), every millisecond,
    /// or until `timeout`; whether it held. The one paced poll of the suite, for what the kernel tells no test.
    static func waitUntil(timeout: Duration, _ holds: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !holds() {
            guard ContinuousClock.now < deadline else { return false }
            usleep(1_000)
        }
        return true
    }
}
