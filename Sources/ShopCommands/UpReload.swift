import Foundation
import LiveObjects
import ShopApplication
import ShopSSH
import ShopServices
import Synchronization
import SystemPackage

/// What SIGHUP does to a running `up`: the configuration read again, the settings that can change live applied
/// (session and connection limits, the API's rate, mail settings, log levels), and the rest named as needing a restart.
final class Reloader: Sendable {
    private let running: RunningUp
    private let current: Mutex<ServiceConfiguration>
    private let overrides: [String]
    private let environment: [String: String]

    init(running: RunningUp, current: ServiceConfiguration, overrides: [String], environment: [String: String]) {
        self.running = running
        self.current = Mutex(current)
        self.overrides = overrides
        self.environment = environment
    }

    /// Reads the configuration again and applies what changed, all or nothing: a configuration with a problem, an
    /// admin-keys file that cannot be read, or mail settings that cannot be used change nothing, and the refusal says so.
    ///
    /// Order: read and check → read the admin keys and build the mail delivery (nothing applied yet) → apply each →
    /// announce each change as applied.
    func reload() async {
        let next = ServiceConfiguration.load(environment: environment, overrides: overrides)
        var problems = next.everyProblem.map(\.description)
        let keys = readAdminKeys(next, problems: &problems)
        let changes = ServiceConfiguration.changes(from: current.withLock { $0 }, to: next)
        let live = changes.filter(\.key.reloadable)
        let sections = Set(live.map(\.key.section))
        var delivery: MailDelivery?
        if problems.isEmpty, sections.contains("mail"), running.mail.delivery.withLock({ $0 }) != nil {
            do { delivery = try UpCommands.mailDelivery(next, storage: running.storage, environment: environment) } catch {
                problems.append("the mail settings cannot be used: \(error)")
            }
        }
        guard problems.isEmpty else {
            for problem in problems { announce("reload: \(problem)", level: .warning) }
            announce("reload: refused, nothing changed: \(problems.count) problem\(problems.count == 1 ? "" : "s")", level: .warning)
            return
        }
        let keysChanged = applyAdminKeys(keys)
        guard !changes.isEmpty else {
            if !keysChanged { announce("reload: nothing changed") }
            return
        }
        for change in changes where !change.key.reloadable {
            announce("reload: \(change.key.name) changed (\(change.description)); it takes a restart to apply", level: .warning)
        }
        if sections.contains("ssh") { running.ssh?.update(next.sshLimits) }
        if sections.contains("web") { running.web?.update(next.webSettings.limits) }
        if sections.contains("api") { running.api?.update(next.apiSettings.limits) }
        if let delivery { running.mail.delivery.withLock { $0 = delivery } }
        if sections.contains("log") || live.contains(where: { $0.key.name == "shop.log-level" }) { next.configureLog(format: false) }
        for change in live { announce("reload: \(change.key.name): \(change.description)") }
        // Only what was applied counts as current: a restart-only change is named again on the next reload.
        current.withLock { configuration in configuration = ServiceConfiguration.merging(live, into: configuration) }
    }

    /// The SSH front's merchant keys as the file `ssh.admin-keys` names now has them (its lines may have changed under
    /// the same name); nil when there is no SSH front. A file that cannot be read is a problem of the reload.
    private func readAdminKeys(_ next: ServiceConfiguration, problems: inout [String]) -> Set<String>? {
        guard running.sshSessions != nil else { return nil }
        guard let path = next["ssh.admin-keys"] else { return [] }
        do { return try AdminKeys.load(SessionLaunch.absolute(FilePath(path)).string).fingerprints } catch {
            problems.append("ssh.admin-keys: \(error)")
            return nil
        }
    }

    /// Puts `keys` in force for the SSH front; true when they changed.
    private func applyAdminKeys(_ keys: Set<String>?) -> Bool {
        guard let command = running.sshSessions, let keys, keys != command.adminFingerprints else { return false }
        command.updateAdminFingerprints(keys)
        announce("reload: ssh.admin-keys: \(keys.count) merchant key\(keys.count == 1 ? "" : "s") from now on")
        return true
    }
}

extension ServiceConfiguration {
    /// A setting whose value differs between two readings.
    public struct Change: Sendable {
        public let key: ServiceKey
        public let old: String?
        public let new: String?

        /// "64 → 100", secrets masked.
        public var description: String {
            let (was, now) = key.secret ? ("****", "****") : (old ?? "unset", new ?? "unset")
            return "\(was) → \(now)"
        }
    }

    /// What differs from `old` to `new`, in the settings' order.
    public static func changes(from old: ServiceConfiguration, to new: ServiceConfiguration) -> [Change] {
        zip(old.values, new.values).compactMap { before, after in
            before.text == after.text ? nil : Change(key: after.key, old: before.text, new: after.text)
        }
    }

    /// `configuration` with `changes` applied, as SIGHUP left it.
    static func merging(_ changes: [Change], into configuration: ServiceConfiguration) -> ServiceConfiguration {
        let values = configuration.values.map { value in
            changes.first { $0.key.name == value.key.name }.map { Value(key: value.key, text: $0.new, source: .defaultValue) } ?? value
        }
        return ServiceConfiguration(values: values, file: configuration.file, problems: [])
    }
}

extension Reloader: LiveObject {}
