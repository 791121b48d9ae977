import Foundation
import ShopModels
import ShopPorts

/// Products' and variants' pictures (v41): the bytes once per digest, the references beside each product and variant.
public enum PicturesMigration {
    static let statements = [
        """
        CREATE TABLE picture (
            digest TEXT PRIMARY KEY,          -- SHA-256 of bytes, lowercase hex
            media_type TEXT NOT NULL,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            bytes {blob} NOT NULL
        )
        """,
        // One line per picture: digest, width, height and file, tab-separated (a file name holds no tab or newline).
        "ALTER TABLE product ADD COLUMN pictures TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE product_variant ADD COLUMN pictures TEXT NOT NULL DEFAULT ''",
    ]

    /// The references as the `pictures` columns keep them.
    public static func stored(_ pictures: [PictureReference]) -> String {
        pictures.map { "\($0.digest)\t\($0.width)\t\($0.height)\t\($0.file)" }.joined(separator: "\n")
    }

    /// The references a `pictures` column holds; a line that does not read is left out.
    public static func references(_ stored: String) -> [PictureReference] {
        Product.storedLines(stored).compactMap { line in
            let parts = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4, let width = Int(parts[1]), let height = Int(parts[2]) else { return nil }
            return PictureReference(file: String(parts[3]), digest: String(parts[0]), width: width, height: height)
        }
    }

    /// Stores each picture once: a digest names the same bytes wherever they came from.
    public static func insert(_ pictures: [StoredPicture], on connection: any SQLConnection) throws {
        for picture in pictures {
            try connection.execute(
                """
                INSERT INTO picture (digest, media_type, width, height, bytes)
                VALUES (\(picture.digest), \(picture.mediaType), \(picture.width), \(picture.height), \(Data(picture.bytes)))
                ON CONFLICT (digest) DO NOTHING
                """)
        }
    }

    /// The pictures the shop holds, by digest: a catalog may name one without its file, and an import decodes it once.
    public static func held(on connection: any SQLConnection) throws -> [String: PictureSize] {
        var held: [String: PictureSize] = [:]
        for row in try connection.rows("SELECT digest, width, height FROM picture") {
            held[try row["digest"]] = PictureSize(width: try row["width"], height: try row["height"])
        }
        return held
    }
}

/// The shop's pictures, read by digest from either database.
public struct SQLPictureRepository: PictureRepository, PictureStoring {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func store(_ picture: StoredPicture) async throws -> Bool {
        try await database.run(.write) { connection in
            let held: Int = try connection.value("SELECT count(*) FROM picture WHERE digest = \(picture.digest)") ?? 0
            guard held == 0 else { return false }
            try PicturesMigration.insert([picture], on: connection)
            return true
        }
    }

    public func picture(digest: String) async throws -> StoredPicture? {
        guard PictureReference.isDigest(digest) else { return nil }
        return try await database.run(.read) { connection in
            try connection.rows("SELECT media_type, width, height, bytes FROM picture WHERE digest = \(digest)").first.map { row in
                StoredPicture(
                    digest: digest, mediaType: try row["media_type"], width: try row["width"], height: try row["height"],
                    bytes: [UInt8](try row["bytes"] as Data))
            }
        }
    }
}
