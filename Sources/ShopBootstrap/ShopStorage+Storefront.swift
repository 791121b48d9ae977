import ShopApplication
import ShopModels
import ShopPictures
import ShopPorts
import StorefrontCore

extension ShopStorage {
    /// The view model's dependencies: the catalog, orders, mail, discounts, subscriptions and the console's catalog
    /// editing from this storage, beside what the session picked. Every session and `TestStack` build through it.
    public func storefrontDependencies(
        payments provider: any PaymentProvider, paymentAuthorization: PaymentAuthorization, backend: any MerchantBackend,
        backOffice: (any BackOffice)?, accounts: AccountDependencies, carts: (any CartRepository)?, featureFlags: any FeatureFlags, ids: IDGenerator,
        qrCodes: any QRCodeMaking, clock: any Clock<Duration>, console: Console, dates: DateSource
    ) -> StorefrontDependencies {
        var dependencies = StorefrontDependencies(
            catalog: catalog, orderHistory: orders, paymentAuthorization: paymentAuthorization, paymentProvider: provider, merchantBackend: backend,
            featureFlags: featureFlags, ids: ids, carts: carts, accounts: accounts, qrCodes: qrCodes, clock: clock, backOffice: backOffice,
            console: console, mail: outbox,
            catalogDesk: console == .shop ? nil : CatalogDesk(editor: catalogEditor, dates: dates, pictures: KeptPictureIntake(store: pictures)),
            discounts: discounts, subscriptions: ShopperSubscriptions(store: subscriptions, dates: dates))
        if console != .shop { dependencies.customers = customerDirectory }
        dependencies.pictures = pictureMosaics
        return dependencies
    }
}
