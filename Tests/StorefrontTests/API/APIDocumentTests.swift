import Crypto
import Foundation
import Testing

@testable import ShopAPI

/// The committed code and JSON are what scripts/openapi-generate makes of openapi/storefront.yaml today.
@Suite("API document and generated code")
struct APIDocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized

    /// Each file openapi/generated-from.sha256 names, with the hash it recorded.
    static func recorded() throws -> [(path: String, hash: String)] {
        let text = try String(contentsOf: root.appendingPathComponent("openapi/generated-from.sha256"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts[1].trimmingCharacters(in: .whitespaces)), String(parts[0]))
        }
    }

    static func hash(_ path: String) throws -> String {
        let data = try Data(contentsOf: root.appendingPathComponent(path))
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    @Test func theGeneratedCodeAndJSONAreFreshFromTheDocument() throws {
        let recorded = try Self.recorded()
        let paths = recorded.map(\.path)
        #expect(paths.contains("openapi/storefront.yaml") && paths.contains("Sources/ShopAPI/Resources/openapi.json"))
        for (path, hash) in recorded {
            #expect(try Self.hash(path) == hash, "\(path) changed since scripts/openapi-generate last ran: run it and commit what it writes")
        }
        let generated = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources/ShopAPI/Generated").path)
        #expect(
            Set(generated.map { "Sources/ShopAPI/Generated/\($0)" }) == Set(paths.filter { $0.hasPrefix("Sources/ShopAPI/Generated/") }),
            "no generated file left over or missing")
    }

    @Test func theServedDocumentIsTheCommittedJSON() throws {
        let committed = try Data(contentsOf: Self.root.appendingPathComponent("Sources/ShopAPI/Resources/openapi.json"))
        #expect(Data(ShopAPIService.documentJSON) == committed)
    }
}
