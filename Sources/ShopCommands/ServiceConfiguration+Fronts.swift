import Foundation
import Logging
import PseudoTerminal
import ShopAPI
import ShopBootstrap
import ShopModels
import ShopServices
import ShopSessions
import ShopWebFront
import SystemPackage

/// The configuration read as each front's and worker's settings, once `problems` is empty.
extension ServiceConfiguration {
    public func duration(_ name: String) -> Duration { self[name].flatMap(ServeDuration.parse) ?? .zero }

    public func address(_ name: String) -> ListenAddress? { self[name].flatMap { try? ListenAddress(parsing: $0) } }

    /// The fronts and workers `up` runs, in the order it starts them.
    public var enabled: [String] {
        ["ssh", "web", "api", "webhooks", "mail-worker", "renewals"].filter { isOn("\($0).enabled") }
    }

    /// The SSH front's limits: the part SIGHUP can change.
    public var sshLimits: ServeLimits {
        ServeLimits(
            maxSessions: count("ssh.max-sessions"), connectionsPerSourcePerMinute: count("ssh.connections-per-minute"),
            idleTimeout: duration("ssh.idle-timeout"), drainTimeout: duration("ssh.drain-timeout"), maxGuests: count("ssh.max-guests"),
            guestsPerAddress: count("ssh.guests-per-address"))
    }

    /// How the fronts' sessions share worker processes (`[sessions]`).
    public var workers: WorkerPolicy {
        WorkerPolicy(
            sessionsPerWorker: count("sessions.per-worker"), recycleAfterSessions: count("sessions.worker-recycle-after"),
            recycleAfter: duration("sessions.worker-lifetime"))
    }

    /// The browser front's settings; its page's title is the shop's name, read once the shop is open.
    public var webSettings: WebFrontSettings {
        let listen = address("web.listen") ?? ListenAddress(host: "127.0.0.1", port: 8080)
        var settings = WebFrontSettings(
            host: listen.host, port: listen.port, publicOrigins: webPublicOrigins.compactMap(WebOrigin.init),
            trustForwardedFor: isOn("web.trust-forwarded-for"), shopName: "")
        settings.limits.maxSessions = count("web.max-sessions")
        settings.limits.sessionsPerAddress = count("web.sessions-per-address")
        settings.limits.connectionsPerMinute = count("web.connections-per-minute")
        settings.limits.connectionsPerAddress = count("web.connections-per-address")
        settings.limits.idleTimeout = duration("web.idle-timeout")
        settings.limits.maxSessionLength = duration("web.max-session-length")
        settings.limits.connectionIdleTimeout = duration("web.request-timeout")
        settings.limits.drainTimeout = duration("web.drain-timeout")
        settings.limits.firstFrameWait = .milliseconds(count("web.first-frame-ms"))
        settings.limits.firstScreenWait = .milliseconds(count("web.first-screen-ms"))
        return settings
    }

    /// `web.public-origins`, else `web.origin`: the pages that may open a session.
    var webPublicOrigins: [String] {
        let listed = (self["web.public-origins"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return listed.isEmpty ? [self["web.origin"]].compactMap { $0 } : listed
    }

    /// The API's settings.
    package var apiSettings: APIServiceSettings {
        var limits = APILimits()
        limits.requestsPerMinute = count("api.rate-limit")
        limits.burst = max(1, limits.requestsPerMinute / 2)
        limits.maxBodyBytes = count("api.max-body")
        limits.requestDeadline = duration("api.request-timeout")
        limits.connectionsPerAddress = count("api.connections-per-address")
        limits.maxConnections = count("api.max-connections")
        return APIServiceSettings(
            listen: address("api.listen") ?? ListenAddress(host: "127.0.0.1", port: 8081), limits: limits,
            bankCheckWindow: duration("api.bank-check-window"), adminKeysFile: self["api.admin-keys"] ?? self["ssh.admin-keys"],
            sandboxLatency: .milliseconds(self["shop.sandbox-latency-ms"].flatMap { Int($0) } ?? 0))
    }

    /// How the shop mails: the command, the sender, where a subscriber's link opens.
    public var mail: MailChoice {
        var choice = MailChoice(
            command: self["mail.command"], from: self["mail.from"], replyTo: self["mail.reply-to"], timeout: duration("mail.timeout"))
        choice.webOrigin = self["web.origin"]
        return choice
    }

    /// Every problem in one pass: values that do not read, then what cannot run although they read (a port two fronts
    /// share is named beside a value that does not read, not after it is fixed).
    public var everyProblem: [ConfigurationError] {
        // Without values (a file that is not there) nothing else can be judged; with a value that does not read, its
        // front is not enabled, which is not news.
        guard !values.isEmpty else { return problems }
        return problems + runProblems(sayingNothingEnabled: problems.isEmpty)
    }

    /// What runs but deserves a second look, said by `config check` and at `up`'s start: an admin listener (metrics,
    /// health) on an address other machines can reach.
    public var warnings: [String] {
        guard let admin = address("admin.listen"), !["127.0.0.1", "::1", "localhost"].contains(admin.host), !admin.host.hasPrefix("127.") else {
            return []
        }
        return [
            "admin.listen \(admin) is reachable from other machines: /metrics and /healthz answer anyone who reaches it "
                + "(keep it on 127.0.0.1, or behind a firewall that lets only your monitoring in)"
        ]
    }

    /// What cannot run although each value reads: fronts on one address, a web front open to anyone unnamed, webhooks
    /// without Stripe, files that are not there, nothing enabled.
    public var runProblems: [ConfigurationError] { runProblems(sayingNothingEnabled: true) }

    /// `runProblems`, without "nothing is enabled" when a value that does not read already says why a front is off.
    func runProblems(sayingNothingEnabled: Bool) -> [ConfigurationError] {
        var found: [ConfigurationError] = []
        func add(_ message: String, _ name: String) { found.append(Self.error(message, from: source(of: name))) }
        let fronts = ["ssh", "web", "api", "webhooks"].filter { isOn("\($0).enabled") }.map { "\($0).listen" } + ["admin.listen"]
        var taken: [String: String] = [:]
        for name in fronts {
            guard let listen = address(name), listen.port != 0 else { continue }
            let place = "\(listen.port)"
            if let other = taken[place] { add("\(name) \(listen) takes port \(listen.port), which \(other) has already", name) }
            taken[place] = name
        }
        if isOn("web.enabled"), let problem = webSettings.problem { add("[web] \(problem)", "web.listen") }
        for origin in webPublicOrigins where WebOrigin(origin) == nil {
            add("web.public-origins: \"\(origin.prefix(80))\" is not an origin such as https://shop.example", "web.public-origins")
        }
        // The rule `up` applies to the sender (one rule for every way it is given): said here, before `up` refuses it.
        for name in ["mail.from", "mail.reply-to"] {
            guard let address = self[name], let problem = Contact.emailProblem(address) else { continue }
            add("\(name) \"\(address.prefix(80))\": \(problem)", name)
        }
        if isOn("webhooks.enabled"), shop.payments != .stripe {
            add("webhooks.enabled: webhooks come from Stripe; set shop.payments = stripe (the sandbox sends none)", "webhooks.enabled")
        }
        if self["ssh.join-socket"] != nil, count("sessions.per-worker") < 2 {
            add("ssh.join-socket: OpenSSH's sessions join this server's workers; set [sessions] per-worker above 1", "ssh.join-socket")
        }
        for name in [
            "shop.catalog", "ssh.admin-keys", "api.admin-keys", "ssh.openid-providers", "webhooks.secret-file", "shop.stripe-secret-key-file",
        ] {
            guard let path = self[name], access(path, R_OK) != 0 else { continue }
            add("\(name): \(path) cannot be read: \(String(cString: strerror(errno)))", name)
        }
        if sayingNothingEnabled, enabled.isEmpty {
            found.append(
                ConfigurationError(
                    source: file ?? "config", line: nil,
                    message: "nothing is enabled: set enabled = on under [ssh], [web], [api], [webhooks], [mail-worker] or [renewals]"))
        }
        return found
    }
}

extension ServiceConfiguration {
    /// The server log's levels (`shop.log-level` over every component, `[log]`'s per component) and, at start, its format.
    public func configureLog(format setFormat: Bool) {
        let level = self["shop.log-level"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        var levels: [String: Logger.Level] = [:]
        for component in ServiceKey.components {
            if let named = self["log.\(component)"].flatMap(Logger.Level.init(rawValue:)) { levels[component] = named }
        }
        let format = setFormat ? self["log.format"].flatMap(ServerLog.Format.init(rawValue:)) : nil
        ServerLog.shared.configure(format: format, defaultLevel: level, levels: levels)
    }
}
