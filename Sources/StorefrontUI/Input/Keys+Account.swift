import ShopLanguages
import StorefrontCore

/// The account screen's keys: its cards, addresses, tokens and sign-in, and the subscriptions it opens.
extension KeyBindings {
    static let accountTable: [KeyBinding] = [
        KeyBinding(
            keys: [.enter], label: "Enter", action: .confirm, summary: Localized("make default"), contexts: [.account], inFooter: true,
            appliesWhen: { [.card, .address].contains($0.account.selectedRow?.kind) }),
        KeyBinding(keys: [.character("n")], label: "n", action: .addCard, summary: Localized("add card"), contexts: [.account], inFooter: true),
        KeyBinding(keys: [.character("d")], label: "d", action: .addAddress, summary: Localized("add address"), contexts: [.account], inFooter: true),
        KeyBinding(
            keys: [.character("t")], label: "t", action: .newAPIToken, summary: Localized("API token"), contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.canMakeTokens }),
        KeyBinding(
            keys: [.character("e")], label: "e", action: .signOutEverywhere, summary: Localized("sign out everywhere"), contexts: [.account],
            inFooter: false,
            appliesWhen: { $0.account.canSignOutEverywhere }),
        KeyBinding(
            keys: [.character("x")], label: "x", action: .removeLine, summary: Localized("remove"), contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.selectedRow != nil }),
        KeyBinding(
            keys: [.character("i")], label: "i", action: .signInOrOut, summary: Localized("sign in"), contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.canSignIn && !$0.account.isSignedIn }),
        KeyBinding(
            keys: [.character("i")], label: "i", action: .signInOrOut, summary: Localized("join account"), contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.canSignIn && $0.account.isSignedIn }),
        KeyBinding(
            keys: [.character("i")], label: "i", action: .signInOrOut, summary: Localized("sign out"), contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.canSignOut }),
        KeyBinding(
            keys: [.enter], label: "Enter", action: .confirm, summary: Localized("change"), contexts: [.subscriptions], inFooter: true,
            appliesWhen: { $0.subscriptions.selected != nil }),
        KeyBinding(keys: [.enter], label: "Enter", action: .confirm, summary: Localized("apply"), contexts: [.subscriptionMenu], inFooter: true),
        KeyBinding(keys: [.escape], label: "Esc", action: .back, summary: Localized("close"), contexts: [.subscriptionMenu], inFooter: true),
        KeyBinding(
            keys: [.character("r")], label: "r", action: .showSubscriptions, summary: Localized("subscriptions"), contexts: [.account],
            inFooter: true,
            appliesWhen: { $0.account.isSignedIn }),
    ]
}
