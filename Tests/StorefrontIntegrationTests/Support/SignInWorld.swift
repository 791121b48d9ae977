import Foundation
import Testing

/// What the sign-in tests run beside the shop: an SMTP sink (aiosmtpd) the shop mails its codes into through msmtp,
/// and an OpenID Connect provider (oidc-provider-mock) named "Mock ID" in a providers file, with Ada as its user.
struct SignInWorld {
    let sink: MailDeliveryTests.Sink
    /// The `--mail-command` that reaches the sink.
    let mail: String
    let provider: OpenIDTestProvider
    /// The `--openid-providers` file.
    let providers: String

    /// With `device`, the provider does the device authorization grant too.
    init(in root: String, device: Bool = false, google: String? = nil) throws {
        sink = try MailDeliveryTests.Sink(directory: root + "/sink")
        mail = try MailDeliveryTests().msmtp(sink, in: root)
        provider = try OpenIDTestProvider(
            users: [["sub": "ada-1", "email": "ada@example.com", "email_verified": true, "name": "Ada"]], device: device, google: google)
        try "s3cret\n".write(toFile: root + "/mock.secret", atomically: true, encoding: .utf8)
        providers = root + "/providers.json"
        try
            (#"{"providers":[{"id":"mock","name":"Mock ID","issuer":""# + provider.issuer
            + #"","client_id":"shop","client_secret_file":"mock.secret","email_domains":["example.com"]}]}"#)
            .write(toFile: providers, atomically: true, encoding: .utf8)
    }

    func stop() { sink.stop() }

    /// The six digits of the code message number `index` (from 0) in the sink: a receipt the shop's mail worker sends
    /// meanwhile may land before or after a code, so only messages holding a code are counted.
    func code(_ index: Int) throws -> String {
        let messages = try sink.messages()
        let codes = messages.compactMap { message in
            (message["body"] ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.count == 6 && $0.allSatisfy(\.isNumber) }
        }
        try #require(codes.count > index, "code \(index + 1) was mailed: \(codes.count) codes in \(messages.count) messages so far")
        return codes[index]
    }
}
