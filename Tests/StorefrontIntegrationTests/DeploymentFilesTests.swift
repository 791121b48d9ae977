import Foundation
import StorefrontTesting
import Testing

/// The deployment files in deploy/: each systemd unit passes `systemd-analyze verify` (Debian `systemd`) with the
/// built binary in its ExecStart, has the hardening docs/operations.md promises, and starts a command whose options
/// exist; the Containerfile runs as a user of its own.
@Suite("Deployment files", .ownThreads)
struct DeploymentFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let units = [
        "storefront.service", "storefront-ssh.service", "storefront-web.service", "storefront-api.service", "storefront-webhooks.service",
    ]

    @Test(arguments: units)
    func eachUnitVerifiesAndIsHardened(_ name: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("deploy/systemd/\(name)"), encoding: .utf8)
        for setting in [
            "DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "CapabilityBoundingSet=\n", "ProtectHome=yes", "PrivateTmp=yes",
            "StateDirectory=storefront", "KillSignal=SIGTERM", "Restart=on-failure",
            // `up` finds its admin listener in the configuration (deploy/storefront.conf), and reloads it on SIGHUP.
            name == "storefront.service" ? "ExecReload=/bin/kill -HUP $MAINPID" : "--admin-listen 127.0.0.1:",
        ] {
            #expect(text.contains(setting), "\(name) has \(setting)")
        }
        let binary = try BuiltProduct.requireStorefront()
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let arguments = line.dropFirst("ExecStart=/usr/local/bin/storefront ".count).split(separator: " ").map(String.init)
        // The command and each option it is given exist in this build.
        let subcommand = arguments.prefix { !$0.hasPrefix("-") }
        let help = try Subprocess.run(binary, Array(subcommand) + ["--help"])
        #expect(help.status == 0, "\(subcommand): \(help.stderr)")
        for option in arguments where option.hasPrefix("--") {
            #expect(help.stdout.contains(option), "\(name): \(option) in `\(subcommand.joined(separator: " ")) --help`")
        }

        let folder = TemporaryDirectory.make().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try text.replacingOccurrences(of: "/usr/local/bin/storefront", with: binary).write(
            toFile: folder + "/\(name)", atomically: true, encoding: .utf8)
        let verified = try Subprocess.run("/usr/bin/systemd-analyze", ["verify", "--man=no", folder + "/\(name)"])
        #expect(verified.status == 0 && verified.stderr.isEmpty, "systemd-analyze verify (Debian systemd) on \(name): \(verified.stderr)")
    }

    @Test func theExampleConfigurationChecksAndEnablesEveryFrontButStripesWebhooks() throws {
        let example = Self.root.appendingPathComponent("deploy/storefront.conf").path
        let data = TemporaryDirectory.make().path
        let checked = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["config", "check", "--config", example, "--set", "shop.data-dir=\(data)"])
        #expect(checked.status == 0, "\(checked)")
        #expect(checked.stdout == "\(example): ok; up would run ssh, web, api, mail-worker, renewals\n")
        let shown = try Subprocess.run(try BuiltProduct.requireStorefront(), ["config", "show", "--config", example])
        #expect(shown.stdout.contains("listen = \"127.0.0.1:9090\"  # \(example):"), "\(shown.stdout)")
    }

    @Test func theContainerRunsAsAUserOfItsOwnWithAHealthCheck() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("deploy/Containerfile"), encoding: .utf8)
        #expect(text.contains("\nUSER storefront\n") && text.contains("useradd --system"))
        #expect(text.contains("HEALTHCHECK CMD [\"/usr/local/bin/storefront\", \"status\", \"--admin\", \"127.0.0.1:9091\"]"))
        #expect(text.contains("\"--admin-listen\", \"127.0.0.1:9091\""), "the health check asks the listener the command starts")
        #expect(text.contains("STOPSIGNAL SIGTERM"))
    }
}
