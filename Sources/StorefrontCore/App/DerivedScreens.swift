import ShopModels
import ShopPorts

/// The screens that show state other features own: the account screen (the account, wallet, profile and tokens), the cart
/// screen and the badge (the cart, and whether One-Tap is ready), and the product page's quantity and Buy now.
///
/// Worked out in one place, at the end of each step whose inputs changed, so no feature keeps another's screen up
/// to date. Order of calls: `inputs` before the step → the step's reducers → `update(since:)`.
@MainActor
enum DerivedScreens {
    /// What the derived screens are made from; equal inputs make equal screens.
    struct Inputs: Equatable {
        var cart: [CartLine]
        var signedIn: SignedInAccount?
        var wallet: WalletContents
        var profile: AccountProfile?
        var apiTokens: [APITokenRecord]
        var waysIn: AccountWaysIn?
        var productOnPage: ProductID?
    }

    static func inputs(_ state: AppState) -> Inputs {
        Inputs(
            cart: state.cart.cart.lines, signedIn: state.customer.signedIn, wallet: state.customer.wallet, profile: state.customer.profile,
            apiTokens: state.customer.apiTokens, waysIn: state.customer.waysIn, productOnPage: state.productDetail.page?.product.id
        )
    }

    /// Brings each derived screen up to date with what changed since `before`.
    static func update(_ state: inout AppState, since before: Inputs, _ env: ShopEnvironment) {
        let now = inputs(state)
        // Arrays compare by identity first, so a step that changed none of them costs a few comparisons.
        guard now != before else { return }
        let wasOneTapReady = state.account.screen.isOneTapReady
        if now.signedIn != before.signedIn || now.wallet != before.wallet || now.profile != before.profile || now.apiTokens != before.apiTokens
            || now.waysIn != before.waysIn
        {
            state.scope(\.account) { AccountFeature.refresh(&$0, env) }
        }
        let oneTapChanged = state.account.screen.isOneTapReady != wasOneTapReady
        if now.cart != before.cart || oneTapChanged { state.scope(\.cart) { CartFeature.showCart(&$0, env) } }
        if now.cart != before.cart || oneTapChanged || now.productOnPage != before.productOnPage {
            let (lines, isOneTapReady) = (state.cart.cart.lines, state.account.screen.isOneTapReady)
            ProductDetailFeature.refresh(&state.productDetail.page, cart: lines, isOneTapReady: isOneTapReady, env)
        }
    }
}
