import StorefrontCore

/// The account screen's keys: its cards, addresses, tokens and sign-in, and the subscriptions it opens.
extension KeyBindings {
    static let accountTable: [KeyBinding] = [
        KeyBinding(
            keys: [.enter], label: "Enter", action: .confirm, summary: "make default", contexts: [.account], inFooter: true,
            appliesWhen: { [.card, .address].contains($0.account.selectedRow?.kind) }),
        KeyBinding(keys: [.character("n")], label: "n", action: .addCard, summary: "add card", contexts: [.account], inFooter: true),
        KeyBinding(keys: [.character("d")], label: "d", action: .addAddress, summary: "add address", contexts: [.account], inFooter: true),
        KeyBinding(
            keys: [.character("t")], label: "t", action: .newAPIToken, summary: "API token", contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.canMakeTokens }),
        KeyBinding(
            keys: [.character("e")], label: "e", action: .signOutEverywhere, summary: "sign out everywhere", contexts: [.account], inFooter: false,
            appliesWhen: { $0.account.canSignOutEverywhere }),
        KeyBinding(
            keys: [.character("x")], label: "x", action: .removeLine, summary: "remove", contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.selectedRow != nil }),
        KeyBinding(
            keys: [.character("i")], label: "i", action: .signInOrOut, summary: "sign in", contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.canSignIn && !$0.account.isSignedIn }),
        KeyBinding(
            keys: [.character("i")], label: "i", action: .signInOrOut, summary: "join account", contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.canSignIn && $0.account.isSignedIn }),
        KeyBinding(
            keys: [.character("i")], label: "i", action: .signInOrOut, summary: "sign out", contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.canSignOut }),
        KeyBinding(
            keys: [.enter], label: "Enter", action: .confirm, summary: "change", contexts: [.subscriptions], inFooter: true,
            appliesWhen: { $0.subscriptions.selected != nil }),
        KeyBinding(keys: [.enter], label: "Enter", action: .confirm, summary: "apply", contexts: [.subscriptionMenu], inFooter: true),
        KeyBinding(keys: [.escape], label: "Esc", action: .back, summary: "close", contexts: [.subscriptionMenu], inFooter: true),
        KeyBinding(
            keys: [.character("r")], label: "r", action: .showSubscriptions, summary: "subscriptions", contexts: [.account], inFooter: true,
            appliesWhen: { $0.account.isSignedIn }),
    ]
}
