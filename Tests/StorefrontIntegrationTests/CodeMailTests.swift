import Crypto
import Foundation
import ShopIdentity
import ShopMail
import ShopModels
import ShopPorts
import StorageRows
import StorageSQLite
import StorefrontTesting
import Testing

/// A code's message, through the mail command receipts use (msmtp) into an SMTP sink (aiosmtpd): the code in the body
/// and nowhere in the subject; the code the shopper reads is the one the shop accepts.
@Suite("A code by email", .ownThreads)
struct CodeMailTests {
    @Test func aCodeGoesOutAtOnceAndTheOneReadIsAccepted() async throws {
        let directory = TemporaryDirectory.make().path
        let sink = try MailDeliveryTests.Sink(directory: directory + "/sink")
        defer { sink.stop() }
        let command = try MailDeliveryTests().msmtp(sink, in: directory)
        let now = Date(timeIntervalSince1970: 1_795_339_800)
        let database = try SQLiteDatabase.open(directory: TemporaryDirectory.make())
        let codes = EmailCodes(store: SQLSignInCodes(database: database), key: SymmetricKey(data: Data(repeating: 3, count: 32)))
        let mailer = CodeMailer(
            transport: SendmailTransport(command: command.split(separator: " ").map(String.init)),
            sender: MailSender(from: MailAddress(name: "Storefront", address: "shop@example.com")), shop: "Storefront")

        let code = try #require(try await codes.request(email: "ada@example.com", purpose: .linkKey, client: "ssh:SHA256:bbbb", at: now))
        try await mailer.send(code: code, purpose: .linkKey, to: "ada@example.com", at: now)
        let message = try #require(try sink.messages().first)
        #expect(message["to"] == "ada@example.com" && message["subject"] == "Your code for Storefront")
        #expect(message["subject"]?.contains(code) == false, "the code is in no header")
        let body = try #require(message["body"])
        #expect(body.contains("add a new SSH key to your account at Storefront") && body.contains("for the next 10 minutes"))
        let read = try #require(
            body.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.first {
                $0.count == 6 && $0.allSatisfy(\.isNumber)
            })
        #expect(try await codes.check(email: "ada@example.com", typed: read, purpose: .linkKey, at: now.addingTimeInterval(60)) == .accepted)
    }
}
