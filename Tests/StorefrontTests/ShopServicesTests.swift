import ShopBootstrap
import ShopServices
import Testing

/// What the fronts read before they start: where to listen, and the webhook endpoint's secrets.
@Suite("Starting the fronts")
struct ShopServicesTests {
    @Test func listenAddressesAreHostAndPortAndAnythingElseIsNamed() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8088") == ListenAddress(host: "127.0.0.1", port: 8088))
        #expect(try ListenAddress(parsing: "[::1]:0").description == "[::1]:0")
        for bad in ["8088", ":8088", "host:65536", "host:-1", "host:port"] {
            #expect(throws: ListenAddressError.self, "\(bad)") { try ListenAddress(parsing: bad) }
        }
    }

    @Test func theSigningSecretIsOneOfTheVariableOrTheFileAndLooksLikeStripes() throws {
        #expect(try WebhookSigningSecrets.read(value: "whsec_0123456789abcdef, whsec_fedcba9876543210", file: nil).count == 2)
        for value in [nil, "", "sk_test_0123456789abcdef", "whsec_short"] {
            #expect(throws: ServiceStartFailure.self, "\(value ?? "nil")") { try WebhookSigningSecrets.read(value: value, file: nil) }
        }
        #expect(throws: ServiceStartFailure.self) { try WebhookSigningSecrets.read(value: "whsec_0123456789abcdef", file: "/dev/null") }
    }
}
