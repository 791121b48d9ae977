import Foundation

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

}
