import Foundation
import ShopBundledCatalog
import ShopModels
import ShopPorts
import ShopSandbox
import StoragePostgres
import StorefrontTesting
import Testing

@Suite("PostgreSQL location", .ownThreads)
struct PostgresLocationTests {
    @Test func aURLGivesEveryPartAndPrintsWithoutItsPassword() throws {
        let location = try PostgresLocation.parse(
            "postgres://shop:s3cret%40x@db.example.com:6543/storefront?sslmode=require&application_name=front-1", environment: [:])
        #expect(location.host == "db.example.com")
        #expect(location.port == 6543)
        #expect(location.user == "shop")
        #expect(location.database == "storefront")
        #expect(location.sslMode == .require)
        #expect(location.applicationName == "front-1")
        #expect(location.hasPassword)
        for text in [location.description, "\(location)", String(reflecting: location)] {
            #expect(!text.contains("s3cret"), "no password in \(text)")
        }
        #expect(location.description == "postgres://shop@db.example.com:6543/storefront?sslmode=require")
    }

    @Test func defaultsFollowLibpq() throws {
        let location = try PostgresLocation.parse("postgresql://localhost", environment: ["USER": "ann"])
        #expect(location.port == 5432)
        #expect(location.user == "ann")
        #expect(location.database == "ann", "the database defaults to the user's name")
        #expect(location.sslMode == .prefer)
        #expect(!location.hasPassword)
    }

    @Test(arguments: [
        ("mysql://localhost/db", "must be a URL like postgres://"),
        ("postgres://localhost/db?sslmode=sometimes", "sslmode \"sometimes\" is not one of disable, allow, prefer, require, verify-ca, verify-full"),
        ("postgres://localhost/db?pool=9", "a parameter storefront does not take: pool"),
        ("postgres://localhost/db?connect_timeout=0", "connect_timeout \"0\""),
        ("postgres://localhost/a/b", "has a slash in it"),
    ])
    func aBadURLIsRefusedSayingWhy(url: String, expected: String) {
        #expect {
            _ = try PostgresLocation.parse(url, environment: [:])
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func thePasswordFileIsReadLikeLibpqsAndRefusedWhenOthersCanReadIt() throws {
        let directory = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("pgpass").path
        try """
        # host:port:database:user:password
        other.example.com:5432:*:shop:wrong
        db.example.com:*:storefront:shop:pa\\:ss\\\\word
        *:*:*:*:fallback
        """.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let location = try PostgresLocation.parse("postgres://shop@db.example.com/storefront", environment: ["PGPASSFILE": file])
        #expect(location.hasPassword)
        #expect(try PostgresLocation.parse("postgres://ann@elsewhere/x", environment: ["PGPASSFILE": file]).hasPassword, "* matches anything")
        chmod(file, 0o644)
        #expect {
            _ = try PostgresLocation.parse("postgres://shop@db.example.com/storefront", environment: ["PGPASSFILE": file])
        } throws: { error in
            "\(error)" == "cannot use the password file \(file): others can read it (mode 644); chmod 600 it"
        }
        #expect(throws: PostgresLocationError.self, "a PGPASSFILE that is named must exist") {
            _ = try PostgresLocation.parse("postgres://shop@db.example.com/storefront", environment: ["PGPASSFILE": file + ".missing"])
        }
        #expect(try !PostgresLocation.parse("postgres://shop@db/x", environment: ["HOME": directory.path]).hasPassword, "no ~/.pgpass is fine")
    }

    @Test func escapedColonsAndBackslashesSplitAsLibpqSplitsThem() {
        #expect(PostgresLocation.passwordFileFields("h:5432:db:u:pa\\:ss\\\\word") == ["h", "5432", "db", "u", "pa:ss\\word"])
    }
}

/// The `storefront` commands against a real PostgreSQL: migrate, import, open, refuse.
