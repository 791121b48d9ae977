import Foundation
import ShopSSH
import ShopSessions
import ShopWebFront
import StorefrontTesting
import Testing

/// Sandbox ID shows its own one-time code, so whoever types an email gets that account: it is offered only where
/// the shop is a local sandbox, and a public browser shop keeps every visitor a guest.
@Suite("Sandbox ID only on a local sandbox", .ownThreads)
struct SandboxSignInPolicyTests {
    @Test(arguments: [
        ("127.0.0.1", [String](), true), ("localhost", [], true), ("::1", [], true),
        ("127.0.0.1", ["https://shop.example"], false), ("0.0.0.0", ["https://shop.example"], false), ("10.0.0.5", ["http://10.0.0.5:8080"], false),
    ])
    func onlyALoopbackPageWithoutAPublicOriginOffersIt(host: String, origins: [String], offers: Bool) {
        let settings = WebFrontSettings(host: host, port: 8080, publicOrigins: origins.compactMap(WebOrigin.init), shopName: "Storefront")
        #expect(settings.offersSandboxSignIn == offers)
    }

    /// The account screen of a browser visitor's session, as `web` starts it: with its vouching variable or without.
    func accountScreen(vouched: Bool) throws -> String {
        let home = TemporaryDirectory.make().path
        var environment = ProcessInfo.processInfo.environment
        environment[SessionCommand.browserGuestVariable] = "0123456789abcdef"
        environment["HOME"] = home
        environment[SessionCommand.sandboxSignInVariable] = vouched ? SessionCommand.localSandboxSignIn : nil
        let result = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["headless", "--data-dir", home + "/data", "--keys", "u"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func aBrowserVisitorOfAPublicPageIsOfferedNoSignIn() throws {
        let publicPage = try accountScreen(vouched: false)
        #expect(publicPage.contains("Shopping as a guest."), "\(publicPage)")
        #expect(!publicPage.contains("Sign in"), "\(publicPage)")
        let local = try accountScreen(vouched: true)
        #expect(local.contains("Sign in to keep your cart"), "\(local)")
    }
}
