import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopIdentity
import ShopModels
import ShopPorts
import StorefrontTesting
import Testing

@testable import ShopAPI

/// A merchant's pictures through the API, on each store: a PNG and a JPEG kept by digest and named by a product, the
/// same bytes again, and every refusal by its reason (a bomb, a truncated file, bytes of another type than sent, too
/// many bytes, a shop token, a product naming a picture the shop does not hold).
@Suite("API picture uploads", .ownThreads)
struct APIPictureUploadTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static var mugPNG: [UInt8] {
        Array(FileManager.default.contents(atPath: repository.appending(path: "assets/pictures/mug-stdout.png").path) ?? Data())
    }
    static var duckJPEG: [UInt8] {
        Array(FileManager.default.contents(atPath: repository.appending(path: "Tests/StorefrontTests/PictureFixtures/duck.jpg").path) ?? Data())
    }

    static func upload(_ client: some TestClientProtocol, _ bytes: [UInt8], as type: String, token: PersonalAccessToken) async throws -> APIReply {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token.secret)"
        headers[.contentType] = type
        return try await client.execute(uri: "/v1/merchant/pictures", method: .post, headers: headers, body: ByteBuffer(bytes: bytes)) { response in
            APIReply(status: response.status, headers: response.headers, body: Data(buffer: response.body))
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func aMerchantKeepsAPictureAndAProductNamesIt(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let png = Self.mugPNG
        try #require(png.count > 1_000, "the bundled mug picture is in assets/pictures/")
        let digest = SHA256.hash(data: png).map { String(format: "%02x", $0) }.joined()
        try await api.run { client async throws in
            let kept = try await Self.upload(client, png, as: "image/png", token: merchant)
            #expect(kept.status == .created || kept.status == .ok, "\(kept.text)")
            let picture = try #require(kept.json["picture"] as? [String: Any], "\(kept.text)")
            #expect(picture["sha256"] as? String == digest && picture["width"] as? Int == 384 && picture["height"] as? Int == 288)
            #expect(picture["file"] as? String == "pictures/\(digest.prefix(16)).png")
            #expect(kept.json["mediaType"] as? String == "image/png" && kept.json["bytes"] as? Int == png.count)
            let again = try await Self.upload(client, png, as: "image/png", token: merchant)
            #expect(again.status == .ok && (again.json["picture"] as? [String: Any])?["sha256"] as? String == digest, "the same bytes, held")

            // A JPEG past the API's usual 64 KiB body (trailing bytes after its end, which JPEG readers skip): kept, new.
            let jpeg = Self.duckJPEG + [UInt8](repeating: 0, count: 100_000)
            let duck = try await Self.upload(client, jpeg, as: "image/jpeg", token: merchant)
            #expect(duck.status == .created && duck.json["mediaType"] as? String == "image/jpeg", "\(duck.text)")

            // The product names the picture as the upload answered it; the shop sells it with it.
            let reference = String(
                decoding: try JSONSerialization.data(withJSONObject: picture, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
            let tee =
                #"{"product": {"id": "tee-mug", "name": "Mug Tee", "summary": "A tee.", "description": "Cotton.", "price": 2400, "pictures": [PICTURE]}}"#
            let made = try await client.call(
                .post, "/v1/merchant/products", token: merchant, json: tee.replacingOccurrences(of: "PICTURE", with: reference))
            #expect(made.status == .created, "\(made.text)")
            let sold = try await api.storage.catalog.product(id: ProductID("tee-mug"))
            #expect(sold?.pictures.map(\.digest) == [digest], "the shop's product names the picture")

            // A picture the shop does not hold is refused by its field, and nothing is saved.
            let unheld = reference.replacingOccurrences(of: digest, with: String(repeating: "ab", count: 32))
            let refused = try await client.call(
                .post, "/v1/merchant/products", token: merchant,
                json: tee.replacingOccurrences(of: "tee-mug", with: "tee-other").replacingOccurrences(of: "PICTURE", with: unheld))
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            let field = (refused.json["errors"] as? [[String: Any]])?.first
            #expect(field?["field"] as? String == "product.pictures[0]", "\(refused.text)")
            #expect((field?["message"] as? String)?.contains("no such picture in the shop; upload it first") == true, "\(refused.text)")
            #expect(try await api.storage.catalog.product(id: ProductID("tee-other")) == nil)
        }
    }

    @Test(arguments: AccountRepositoryKind.allCases)
    func everyBadPictureIsRefusedByItsReason(kind: AccountRepositoryKind) async throws {
        let api = try await APIHarness(kind)
        let merchant = try await api.makeToken(owner: "ssh:SHA256:admin", scope: .merchant)
        let shopper = try await api.makeToken()
        try await api.run { client async throws in
            func refusal(_ bytes: [UInt8], as type: String, token: PersonalAccessToken? = nil) async throws -> (HTTPResponse.Status, String) {
                let reply = try await Self.upload(client, bytes, as: type, token: token ?? merchant)
                return (reply.status, reply.json["detail"] as? String ?? reply.text)
            }
            let bomb = try await refusal(Fixtures.png(width: 50_000, height: 50_000), as: "image/png")
            #expect(bomb.0 == .unprocessableContent && bomb.1.hasPrefix("The picture is too large"), "\(bomb)")
            let cut = try await refusal(Array(Self.duckJPEG.prefix(Self.duckJPEG.count / 2)), as: "image/jpeg")
            #expect(
                cut.0 == .unprocessableContent && cut.1.hasPrefix("The picture is cut short") || cut.1.hasPrefix("The picture is damaged"), "\(cut)")
            let disguised = try await refusal(Self.duckJPEG, as: "image/png")
            #expect(disguised.0 == .unprocessableContent && disguised.1.contains("the bytes are image/jpeg, sent as image/png"), "\(disguised)")
            let noise = try await refusal((0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }, as: "image/png")
            #expect(noise.0 == .unprocessableContent && noise.1 == "The picture is not a PNG or JPEG picture.", "\(noise)")
            let huge = try await refusal([UInt8](repeating: 0, count: 8 * 1024 * 1024 + 1), as: "image/png")
            #expect(huge.0 == .contentTooLarge && huge.1 == "The body is over 8388608 bytes.", "\(huge)")
            // A shop token is refused before its body is read, whatever its size.
            let shop = try await refusal(Self.duckJPEG + [UInt8](repeating: 0, count: 100_000), as: "image/jpeg", token: shopper)
            #expect(shop.0 == .forbidden && shop.1 == "Uploading pictures needs a merchant token.", "\(shop)")
            let text = try await client.call(.post, "/v1/merchant/pictures", token: merchant, json: "{}")
            #expect(text.status == .badRequest || text.status == .unsupportedMediaType, "JSON is not a picture: \(text.status) \(text.text)")
        }
        #expect(try await api.storage.pictures.picture(digest: String(repeating: "0", count: 64)) == nil)
    }
}
