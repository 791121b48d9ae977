import Clocks
import Foundation
import IssueReporting
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorefrontCore

/// Fails the test that called `method` of `port` without setting that port up, naming both.
func unimplemented(
    _ port: String, _ method: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    reportIssue(
        "Unimplemented: \(port).\(method) was called, but this test did not set up \(port).", fileID: fileID, filePath: filePath, line: line,
        column: column)
}

/// The error an unimplemented storage port throws after failing the test.
struct Unimplemented: Error, CustomStringConvertible {
    var port: String
    var description: String { "\(port) is not set up in this test" }
}

extension StorefrontDependencies {
    /// Every port fails the test when called: a test sets up, with `with…`, exactly what its feature uses.
    ///
    /// The shop's profile is the only thing given, as the store reads it on construction.
    public static func unimplemented(shop: ShopProfile = .standard()) -> StorefrontDependencies {
        StorefrontDependencies(
            catalog: UnimplementedCatalog(shop: shop), orderHistory: UnimplementedOrderHistory(),
            paymentAuthorization: .unimplemented, paymentProvider: UnimplementedPaymentProvider(),
            merchantBackend: UnimplementedMerchantBackend(), featureFlags: StaticFeatureFlags.defaults, ids: .unimplemented,
            carts: UnimplementedCartRepository(),
            accounts: AccountDependencies(
                wallets: UnimplementedWalletRepository(), walletOwner: WalletOwner("guest"), profiles: UnimplementedProfileRepository(),
                signIn: nil, guestID: "guest", dates: .unimplemented
            ),
            qrCodes: UnimplementedQRCodes(), clock: UnimplementedClock(name: "StorefrontDependencies.clock"),
            backOffice: UnimplementedBackOffice()
        )
    }
}

extension IDGenerator {
    /// Fails the test when asked for an id.
    public static let unimplemented = IDGenerator {
        StorefrontTesting.unimplemented("IDGenerator", "next()")
        return "unimplemented-id"
    }
}

extension DateSource {
    /// Fails the test when asked the time.
    public static let unimplemented = DateSource {
        StorefrontTesting.unimplemented("DateSource", "now()")
        return Date(timeIntervalSince1970: 0)
    }
}
