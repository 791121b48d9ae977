import Foundation
import ShopBootstrap
import ShopCommands
import StorefrontTesting
import SystemPackage
import Testing

/// The configuration every command reads: the file, then the environment over it, each value typed the same way.
@Suite("Shop configuration")
struct ShopConfigurationTests {
    @Test func theEnvironmentOverridesTheFileAndEachValueIsTyped() throws {
        let home = TemporaryDirectory.make()
        let folder = home.appendingPathComponent(".config/storefront")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(
            """
            # the shop on this laptop
            data-dir = /srv/shop
            payments = stripe
            one-tap = cart
            database = postgres://shop@db/shop
            """.utf8
        ).write(to: folder.appendingPathComponent("config"))
        let read = ServiceConfiguration.load(environment: [
            "HOME": home.path, "STOREFRONT_PAYMENTS": "sandbox", "STOREFRONT_ONE_TAP_PRODUCT": "on",
        ])
        #expect(read.problems.isEmpty, "\(read.problems)")
        let configuration = read.shop
        #expect(configuration.dataDirectory(environment: [:]) == FilePath("/srv/shop"))
        #expect(configuration.payments == .sandbox, "the environment wins over the file")
        #expect(configuration.oneTapCart == true && configuration.oneTapProduct == true)
        #expect(configuration.storagePlace(dataDirectory: "/srv/shop") == .postgres(URL(string: "postgres://shop@db/shop")!))
    }

    @Test func aBadLineIsNamedWithItsNumber() {
        func problems(_ text: String) -> [String] {
            ServiceConfiguration.resolve(text: text, path: "config", environment: [:], overrides: []).problems.map(\.description)
        }
        #expect(problems("theme = dark\nmouse = maybe\n") == ["config:2: mouse must be on or off, got \"maybe\""])
        #expect(problems("theme = dark\n\nstripe-api-base = not a url\n") == ["config:3: stripe-api-base must be a URL, got \"not a url\""])
        #expect(
            problems("sandbox-latency-ms = 99999\n") == [
                "config:1: sandbox-latency-ms must be a whole number of milliseconds from 0 to 60000, got \"99999\""
            ], "the bound the flag has holds in the file too")
    }

    @Test func withoutASettingTheDataDirectoryIsXDGs() {
        #expect(ShopConfiguration().dataDirectory(environment: ["XDG_DATA_HOME": "/x"]) == FilePath("/x/storefront"))
        #expect(ShopConfiguration().dataDirectory(environment: ["HOME": "/h"]) == FilePath("/h/.local/share/storefront"))
    }

    @Test func aSessionGetsTheServersConfigurationWholeAndRefusesOneItCannotRead() throws {
        var configuration = ShopConfiguration()
        configuration.dataDirectory = "/srv/shop"
        configuration.payments = .stripe
        configuration.stripeReturnURL = URL(string: "https://shop.example/back")
        configuration.sandboxLatencyMilliseconds = 0
        let settings = SessionSettings(configuration: configuration, migrates: false)
        let environment = [SessionSettings.variable: settings.encoded()]
        #expect(try SessionSettings.handedOver(in: environment) == settings)
        #expect(try SessionSettings.handedOver(in: [:]) == nil, "a shop started by hand reads its own")
        #expect(throws: ServiceStartFailure.self) { try SessionSettings.handedOver(in: [SessionSettings.variable: "--payments stripe"]) }
    }
}
