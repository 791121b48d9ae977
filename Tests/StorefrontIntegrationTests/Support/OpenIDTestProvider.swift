import Foundation
import LiveObjects
import StorefrontTesting
import Testing

/// An OpenID Connect provider of the test's own: oidc-provider-mock (PyPI), run by `scripts/oidc-test-provider` on a
/// loopback port with PKCE required, its users given as claims. Stopped when released; when the package is missing,
/// starting one fails the test with its name.
final class OpenIDTestProvider: @unchecked Sendable {
    private(set) var port = 0
    private var pid: pid_t = 0

    var issuer: String { "http://127.0.0.1:\(port)" }

    /// With `device`, it does the device authorization grant too, asking to be polled at most once a second.
    /// `google` answers the device endpoint as Google does: "tv" for a TV client's answer, "web" for its refusal of a
    /// web client.
    init(users: [[String: Any]], device: Bool = false, google: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let claims = try users.flatMap { ["--user-claims", String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self)] }
        (pid, port) = try LocalStripe.startServer(
            [LocalStripe.script("oidc-test-provider")] + claims + (device ? ["--device", "--device-interval", "1"] : [])
                + (google.map { ["--google-device=\($0)"] } ?? []),
            errorFile: directory.appendingPathComponent("oidc.err").path,
            what: "oidc-provider-mock (PyPI: oidc-provider-mock; install it with `python3 -m pip install oidc-provider-mock`)",
            sourceLocation: sourceLocation)
    }

    deinit { LocalStripe.stopServer(pid) }

    /// What a person does at the provider's page: picks `subject` and allows; returns where the provider sends the
    /// browser back (its `Location`).
    func authorize(_ url: String, as subject: String) throws -> String {
        let path = String(try #require(url.range(of: "/oauth2/authorize").map { url[$0.lowerBound...] }))
        let form = "sub=\(subject)&action=allow"
        let answer = try LocalStripe.exchange(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)", port: port)
        let location = answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
        return try #require(location.map { String($0.dropFirst("location:".count)).trimmingCharacters(in: .whitespaces) }, "\(answer.prefix(600))")
    }

    /// What a person does at the provider's device page: approves `userCode` as `subject`, or denies it.
    func decide(userCode: String, as subject: String, approve: Bool = true) throws {
        let form = "user_code=\(userCode)&sub=\(subject)&action=\(approve ? "approve" : "deny")"
        let answer = try LocalStripe.exchange(
            "POST /device HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)", port: port)
        try #require(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(400))")
    }

    /// The query parameter `name` of `url`.
    static func parameter(_ name: String, of url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
    }
}

extension OpenIDTestProvider: LiveObject {}
