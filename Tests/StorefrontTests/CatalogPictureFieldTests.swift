import Foundation
import ShopModels
import Testing

/// A catalog's `pictures`: paths inside its folder to PNG or JPEG files, or the stored form export writes; each
/// problem told at its product's field.
@Suite("Catalog pictures field")
struct CatalogPictureFieldTests {
    static func issues(_ pictures: String) -> [String] {
        let json = """
            {"store": {"name": "S", "merchantIdentifier": "m", "country": "US", "currency": "USD", "supportedNetworks": ["visa"]},
             "products": [{"id": "a", "name": "A", "description": "d.", "price": 100, "pictures": \(pictures)}]}
            """
        do {
            _ = try CatalogLoader.load(data: Data(json.utf8), source: "t")
            return []
        } catch let error as CatalogError {
            return error.issues.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func filesInsideTheFolderAndTheStoredFormAreTaken() throws {
        #expect(Self.issues(#"["pictures/a.png", "b.JPG", "c/d/e.jpeg"]"#) == [])
        let digest = String(repeating: "ab", count: 32)
        #expect(Self.issues(#"[{"file": "a.png", "sha256": "\#(digest)", "width": 384, "height": 288}]"#) == [])
    }

    @Test func eachBadPathIsToldAtItsPlace() {
        #expect(
            Self.issues(#"["/etc/passwd.png"]"#) == [
                #"$.products[0].pictures[0] (product "a"): must be a relative path inside the catalog's folder, without . or .. parts"#
            ])
        #expect(Self.issues(#"["../up.png"]"#).first?.contains("without . or .. parts") == true)
        #expect(Self.issues(#"["a//b.png"]"#).first?.contains("without . or .. parts") == true)
        #expect(Self.issues(#"["a\\b.png"]"#).first?.contains("a backslash") == true)
        #expect(Self.issues(#"["a.gif"]"#) == [#"$.products[0].pictures[0] (product "a"): must be a .png, .jpg or .jpeg file"#])
        #expect(Self.issues(#"["a.png", "a.png"]"#) == [#"$.products[0].pictures (product "a"): names a picture twice"#])
        #expect(Self.issues("[" + (0..<9).map { "\"p\($0).png\"" }.joined(separator: ",") + "]").first?.contains("at most 8 picture files") == true)
        #expect(Self.issues(#""a.png""#).first?.contains("must be an array") == true)
    }

    @Test func theStoredFormIsCheckedField() {
        #expect(
            Self.issues(#"[{"file": "a.png", "sha256": "XYZ", "width": 1, "height": 1}]"#).first?.contains("64 lowercase hexadecimal digits") == true)
        let digest = String(repeating: "0", count: 64)
        #expect(Self.issues(#"[{"file": "a.png", "sha256": "\#(digest)", "width": 0, "height": 1}]"#).first?.contains("from 1 to 8192") == true)
        #expect(Self.issues(#"[{"file": "a.png"}]"#).first?.contains("for a picture the shop holds") == true)
    }
}
