import Crypto
import Foundation
import ShopPorts
import Testing

@testable import ShopIdentity

@Suite("Personal access tokens")
struct APITokenTests {
    @Test func aMintedSecretHasThePrefixAndLengthAndReadsBack() throws {
        let token = PersonalAccessToken.mint()
        #expect(token.secret.hasPrefix("sfp_"))
        #expect(token.secret.count == 47)
        #expect(PersonalAccessToken(token.secret) == token)
        #expect(PersonalAccessToken.mint() != token, "random")
    }

    @Test func aMistypedSecretFailsItsChecksum() throws {
        let secret = PersonalAccessToken.mint().secret
        var characters = Array(secret)
        characters[10] = characters[10] == "a" ? "b" : "a"
        #expect(PersonalAccessToken(String(characters)) == nil)
        #expect(PersonalAccessToken(secret + "x") == nil)
        #expect(PersonalAccessToken("ghp_" + secret.dropFirst(4)) == nil)
        #expect(PersonalAccessToken(String(secret.dropLast())) == nil)
    }

    @Test func theStoredRecordHoldsTheHashAndNeverTheSecret() throws {
        let token = PersonalAccessToken.mint()
        let record = token.record(name: "script", owner: "ssh:SHA256:x", scope: .shop, at: Date(timeIntervalSince1970: 0))
        let expected = SHA256.hash(data: Data(token.secret.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(record.secretHash == expected)
        #expect(record.lastFour == String(token.secret.suffix(4)))
        #expect(record.id.hasPrefix("tok_") && record.id.count == 20)
        #expect(!"\(record)".contains(token.secret))
        #expect("\(token)" == "sfp_…\(record.lastFour)", "a token in a log or message shows as its hint")
    }

    @Test func theChecksumIsCRC32() {
        // The check value every CRC-32 (IEEE) implementation gives for "123456789".
        #expect(PersonalAccessToken.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    }
}
