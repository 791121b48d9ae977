extension CatalogLoader {
    /// The most pictures a product or a variant names.
    public static let maximumPictures = 8
    /// The longest picture path a catalog may name.
    public static let maximumPicturePathLength = 200
    /// The largest picture file, in bytes, a catalog or an upload may bring.
    public static let maximumPictureBytes = 8 * 1024 * 1024
    /// The widest and tallest picture a reference may say it is; the decoder holds pictures to the same.
    public static let maximumPictureSide = 8_192

    /// `"pictures": ["pictures/mug.png", {"file": …, "sha256": …, "width": …, "height": …}]`: a file beside the
    /// catalog, to be read at import, or one the shop holds already; nil after telling `fail` what is wrong.
    static func parsePictures(_ value: JSONValue?, fail: (String, String) -> Void) -> [PictureReference] {
        guard let value else { return [] }
        guard let list = value.arrayValue, list.count <= maximumPictures else {
            fail("", "must be an array of at most \(maximumPictures) picture files")
            return []
        }
        var pictures: [PictureReference] = []
        for (index, item) in list.enumerated() {
            let at = "[\(index)]"
            if let file = item.stringValue {
                if let problem = picturePathProblem(file) {
                    fail(at, problem)
                } else {
                    pictures.append(PictureReference(file: file, digest: "", width: 0, height: 0))
                }
                continue
            }
            guard let fields = item.objectValue, Set(fields.keys) == ["file", "sha256", "width", "height"],
                let file = fields["file"]?.stringValue, let digest = fields["sha256"]?.stringValue,
                case .integer(let width) = fields["width"], case .integer(let height) = fields["height"]
            else {
                fail(at, "must be a file name, or {\"file\", \"sha256\", \"width\", \"height\"} for a picture the shop holds")
                continue
            }
            if let problem = picturePathProblem(file) {
                fail("\(at).file", problem)
            } else if !PictureReference.isDigest(digest) {
                fail("\(at).sha256", "must be 64 lowercase hexadecimal digits")
            } else if !(1...Int64(maximumPictureSide)).contains(width) || !(1...Int64(maximumPictureSide)).contains(height) {
                fail(at, "width and height must be whole numbers of pixels from 1 to \(maximumPictureSide)")
            } else {
                pictures.append(PictureReference(file: file, digest: digest, width: Int(width), height: Int(height)))
            }
        }
        if Set(pictures.map(\.file)).count != pictures.count { fail("", "names a picture twice") }
        return pictures
    }

    /// Why `path` cannot name a picture beside the catalog, or nil: relative, inside the catalog's folder, a PNG or JPEG.
    public static func picturePathProblem(_ path: String) -> String? {
        if path.isEmpty || path.utf8.count > maximumPicturePathLength { return "must be a path of 1 to \(maximumPicturePathLength) bytes" }
        if containsControlCharacter(path) || path.contains("\\") { return "contains a control character or a backslash" }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if path.hasPrefix("/") || parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            return "must be a relative path inside the catalog's folder, without . or .. parts"
        }
        let lowered = path.lowercased()
        guard [".png", ".jpg", ".jpeg"].contains(where: { lowered.hasSuffix($0) }) else { return "must be a .png, .jpg or .jpeg file" }
        return nil
    }
}

extension PictureReference {
    /// True for a SHA-256 as the shop writes it: 64 lowercase hexadecimal digits.
    public static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// True once the picture's bytes were read, checked and stored: it has a digest and a size.
    public var isStored: Bool { !digest.isEmpty }

    /// The reference as a catalog document writes it once stored.
    public var json: JSONValue {
        .object(["file": .string(file), "sha256": .string(digest), "width": .integer(Int64(width)), "height": .integer(Int64(height))])
    }
}
