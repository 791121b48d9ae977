import ShopLanguages
import StorefrontCore

/// A key as the shopper pressed it, decoded from terminal input or a script.
public enum Key: Hashable, Sendable, CustomStringConvertible {
    case up, down, left, right, enter, escape, tab, backspace, pageUp, pageDown, home, end
    case character(Character)

    /// The names `storefront headless --keys` accepts, besides any single character.
    public static let names: [String: Key] = [
        "up": .up, "down": .down, "left": .left, "right": .right, "enter": .enter, "esc": .escape,
        "tab": .tab, "backspace": .backspace, "pgup": .pageUp, "pgdn": .pageDown, "home": .home,
        "end": .end, "space": .character(" "),
    ]

    /// Parses a key name ("enter", "pgdn") or a single character ("a", "/").
    public init?(name: String) {
        if let key = Key.names[name.lowercased()] {
            self = key
        } else if name.count == 1, let character = name.first, !character.isNewline {
            self = .character(character)
        } else {
            return nil
        }
    }

    public var description: String {
        if case .character(let c) = self { return c == " " ? "space" : String(c) }
        return Key.names.first { $0.value == self }?.key ?? "?"
    }
}

/// Which bindings apply: a screen, or a mode on top of one (search typing, a chooser, the prompt, help).
public enum KeyContext: Int, Hashable, Sendable, CaseIterable {
    case productList, search, productDetail, cart, paymentSheet, chooser, authorizationPrompt
    case confirmation, orders, orderDetail, account, form, cardLink, bankCheck, paymentCheck, help
    /// The shopper is asked whether to cancel the opened order.
    case cancelPrompt
    /// The shopper's subscriptions, and the changes Enter opened for one of them.
    case subscriptions, subscriptionMenu
    /// The merchant console's screens, and its prompt before a change.
    case merchantQueue, merchantOrder, merchantRefund, merchantStock, merchantSales, merchantCatalog, merchantDiscounts, merchantPrompt
    case merchantSubscriptions, merchantCustomers, merchantCustomer

    /// Borrows the state: an initializer owns its arguments, so taking it plainly copied the state on every key.
    public init(_ state: borrowing StorefrontState) {
        if state.isHelpShown {
            self = .help
            return
        }
        switch state.screen {
        case .productList: self = state.productList.isEditingQuery ? .search : .productList
        case .productDetail: self = .productDetail
        case .cart: self = .cart
        case .paymentSheet:
            switch state.paymentSheet?.phase {
            case .confirming?: self = .authorizationPrompt
            case .choosing?: self = .chooser
            case .checkingWithBank?: self = .bankCheck
            case .checkingPayment?: self = .paymentCheck
            default: self = .paymentSheet
            }
        case .confirmation: self = .confirmation
        case .orders: self = .orders
        case .orderDetail: self = state.orderCancel == nil ? .orderDetail : .cancelPrompt
        case .account: self = .account
        case .subscriptions: self = state.subscriptions.menu == nil ? .subscriptions : .subscriptionMenu
        case .form: self = .form
        case .cardLink: self = .cardLink
        case _ where state.merchant?.prompt != nil: self = .merchantPrompt
        case .merchantQueue: self = .merchantQueue
        case .merchantOrder: self = .merchantOrder
        case .merchantRefund: self = .merchantRefund
        case .merchantStock: self = .merchantStock
        case .merchantSales: self = .merchantSales
        case .merchantCatalog: self = .merchantCatalog
        case .merchantDiscounts: self = .merchantDiscounts
        case .merchantSubscriptions: self = .merchantSubscriptions
        case .merchantCustomers: self = .merchantCustomers
        case .merchantCustomer: self = .merchantCustomer
        }
    }
}

/// One row of the key table: the keys, what they do, and where.
public struct KeyBinding: Sendable {
    public var keys: [Key]
    /// How the keys are written in footers and help ("↑/k").
    public var label: String
    public var action: Action
    public var summary: Localized
    public var contexts: Set<KeyContext>
    /// Shown in the footer of its contexts (help always lists every binding).
    public var inFooter: Bool
    /// Whether the binding applies in a state of its contexts: absent bindings neither decode nor show.
    public var appliesWhen: @Sendable (StorefrontState) -> Bool = { _ in true }

    /// Help, quit and the way out of help keep their place in a footer too narrow for every hint.
    public var isAlwaysInFooter: Bool { action == .toggleHelp || action == .quit || contexts == [.help] }
}

/// The one key table: decoding, footers and the help overlay all read it.
public enum KeyBindings {
    static let browsing: Set<KeyContext> = [
        .productList, .productDetail, .cart, .confirmation, .orders, .orderDetail, .account, .subscriptions,
    ]
    private static let lists: Set<KeyContext> = [
        .productList, .cart, .orders, .account, .subscriptions, .subscriptionMenu, .merchantQueue, .merchantStock, .merchantCatalog,
        .merchantDiscounts, .merchantSubscriptions, .merchantCustomers, .merchantCustomer, .chooser, .paymentSheet,
    ]
    /// Where typed characters are text, so letters bind nothing.
    private static let typing: Set<KeyContext> = [.search, .form]

    public static let table: [KeyBinding] = shopTable + merchantTable

    private static let shopTable: [KeyBinding] =
        [
            KeyBinding(
                keys: [.up, .character("k")], label: "↑/k", action: .moveUp, summary: Localized("up"),
                contexts: lists.union([.paymentSheet, .chooser, .merchantRefund]), inFooter: false),
            KeyBinding(
                keys: [.down, .character("j")], label: "↓/j", action: .moveDown, summary: Localized("down"),
                contexts: lists.union([.paymentSheet, .chooser, .merchantRefund]), inFooter: false),
            KeyBinding(keys: [.up], label: "↑", action: .moveUp, summary: Localized("up"), contexts: typing, inFooter: false),
            KeyBinding(keys: [.down], label: "↓", action: .moveDown, summary: Localized("down"), contexts: typing, inFooter: false),
            KeyBinding(
                keys: [.tab], label: "Tab", action: .nextField, summary: Localized("next field"), contexts: [.form], inFooter: true,
                appliesWhen: { $0.form?.link == nil }),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("next"), contexts: [.form], inFooter: true,
                appliesWhen: { $0.form?.link == nil && !($0.form?.isOnLastField ?? true) }),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("submit"), contexts: [.form], inFooter: true,
                appliesWhen: { $0.form?.link == nil && $0.form?.isOnLastField ?? false }),
        ] + accountTable + [
            KeyBinding(keys: [.pageUp], label: "PgUp", action: .pageUp, summary: Localized("page up"), contexts: lists, inFooter: false),
            KeyBinding(keys: [.pageDown], label: "PgDn", action: .pageDown, summary: Localized("page down"), contexts: lists, inFooter: false),
            KeyBinding(keys: [.home], label: "Home", action: .moveToTop, summary: Localized("first"), contexts: lists, inFooter: false),
            KeyBinding(keys: [.end], label: "End", action: .moveToBottom, summary: Localized("last"), contexts: lists, inFooter: false),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("open"), contexts: [.productList, .orders], inFooter: true),
            KeyBinding(keys: [.enter], label: "Enter", action: .confirm, summary: Localized("checkout"), contexts: [.cart], inFooter: true),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("change"), contexts: [.paymentSheet], inFooter: true,
                appliesWhen: { !($0.paymentSheet?.offersCardSetup ?? false) }),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("set up card"), contexts: [.paymentSheet], inFooter: true,
                appliesWhen: { $0.paymentSheet?.offersCardSetup ?? false }),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("select"), contexts: [.chooser], inFooter: true,
                appliesWhen: { $0.paymentSheet?.chooser?.row != .items }),
            // The Items row's list is read, not chosen from.
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("close"), contexts: [.chooser], inFooter: true,
                appliesWhen: { $0.paymentSheet?.chooser?.row == .items }),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("confirm"), contexts: [.authorizationPrompt], inFooter: true),
            KeyBinding(keys: [.enter], label: "Enter", action: .confirm, summary: Localized("done"), contexts: [.search], inFooter: true),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("keep shopping"), contexts: [.confirmation], inFooter: true),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("new link"), contexts: [.cardLink], inFooter: true,
                appliesWhen: { $0.cardLink?.canRenew == true }),
            KeyBinding(
                keys: [.character("p")], label: "p", action: .pay, summary: Localized("pay"), contexts: [.paymentSheet], inFooter: true,
                appliesWhen: { $0.paymentSheet?.isPayEnabled ?? false }),
            // Not ready: p still answers, by pointing at what is missing; the footer says so.
            KeyBinding(
                keys: [.character("p")], label: "p", action: .pay, summary: Localized("what's missing"), contexts: [.paymentSheet], inFooter: true,
                appliesWhen: { !($0.paymentSheet?.isPayEnabled ?? false) && !($0.paymentSheet?.offersCardSetup ?? false) }),
            // A product with options: ←/→ pick a value of the focused option, ↑/↓ move between options.
            KeyBinding(
                keys: [.left, .character("h")], label: "←/→", action: .previousChoice, summary: Localized("choose"), contexts: [.productDetail],
                inFooter: true,
                appliesWhen: { $0.productDetail?.product.hasVariants ?? false }),
            KeyBinding(
                keys: [.right, .character("l")], label: "→", action: .nextChoice, summary: Localized("next value"), contexts: [.productDetail],
                inFooter: false,
                appliesWhen: { $0.productDetail?.product.hasVariants ?? false }),
            KeyBinding(
                keys: [.up, .character("k")], label: "↑/↓", action: .moveUp, summary: Localized("option"), contexts: [.productDetail], inFooter: true,
                appliesWhen: { ($0.productDetail?.product.options.count ?? 0) > 1 }),
            KeyBinding(
                keys: [.down, .character("j")], label: "↓", action: .moveDown, summary: Localized("next option"), contexts: [.productDetail],
                inFooter: false,
                appliesWhen: { ($0.productDetail?.product.options.count ?? 0) > 1 }),
            KeyBinding(
                keys: [.character("a")], label: "a", action: .addToCart, summary: Localized("add"), contexts: [.productList, .productDetail],
                inFooter: true),
            KeyBinding(
                keys: [.character("r")], label: "r", action: .subscribe, summary: Localized("subscribe"), contexts: [.productDetail], inFooter: true,
                appliesWhen: { $0.productDetail?.canSubscribe ?? false }),
            KeyBinding(
                keys: [.character("b")], label: "b", action: .buyNow, summary: Localized("buy now"), contexts: [.productDetail, .cart],
                inFooter: true,
                appliesWhen: canBuyNow),
            KeyBinding(
                keys: [.character("+"), .character("=")], label: "+/-", action: .increaseQuantity, summary: Localized("quantity"), contexts: [.cart],
                inFooter: true),
            KeyBinding(
                keys: [.character("-")], label: "-", action: .decreaseQuantity, summary: Localized("less"), contexts: [.cart], inFooter: false),
            KeyBinding(keys: [.character("x")], label: "x", action: .removeLine, summary: Localized("remove"), contexts: [.cart], inFooter: true),
            KeyBinding(
                keys: [.character("x")], label: "x", action: .cancelOrder, summary: Localized("cancel order"), contexts: [.orderDetail],
                inFooter: true,
                appliesWhen: { $0.canCancelOpenedOrder }),
            KeyBinding(
                keys: [.enter], label: "Enter", action: .confirm, summary: Localized("cancel order"), contexts: [.cancelPrompt], inFooter: true,
                appliesWhen: { $0.orderCancel == .confirming }),
            KeyBinding(
                keys: [.escape], label: "Esc", action: .back, summary: Localized("keep order"), contexts: [.cancelPrompt], inFooter: true,
                appliesWhen: { $0.orderCancel == .confirming }),
            KeyBinding(
                keys: [.character("/")], label: "/", action: .beginSearch, summary: Localized("search"), contexts: [.productList], inFooter: true),
            KeyBinding(keys: [.backspace], label: "⌫", action: .deleteBackward, summary: Localized("delete"), contexts: typing, inFooter: false),
        ] + browsingTable + [
            KeyBinding(
                keys: [.escape], label: "Esc", action: .back, summary: Localized("back"),
                contexts: [.productDetail, .cart, .orders, .orderDetail, .chooser, .account, .subscriptions], inFooter: true),
            KeyBinding(
                keys: [.escape], label: "Esc", action: .back, summary: Localized("cancel"),
                contexts: [.paymentSheet, .authorizationPrompt, .form, .cardLink],
                inFooter: true),
            KeyBinding(
                keys: [.escape], label: "Esc", action: .back, summary: Localized("cancel payment"), contexts: [.bankCheck], inFooter: true,
                appliesWhen: {
                    !($0.paymentSheet?.bankCheck?.isCanceling ?? true)
                }),
            KeyBinding(
                keys: [.escape], label: "Esc", action: .back, summary: Localized("stop waiting"), contexts: [.paymentCheck], inFooter: true,
                appliesWhen: {
                    $0.paymentSheet?.phase == .checkingPayment(isStopping: false)
                }),
            KeyBinding(
                keys: [.escape], label: "Esc", action: .back, summary: Localized("clear"), contexts: [.search, .productList], inFooter: false),
            KeyBinding(
                keys: [.escape, .character("?")], label: "Esc", action: .back, summary: Localized("close help"), contexts: [.help], inFooter: true),
            KeyBinding(
                keys: [.character("?")], label: "?", action: .toggleHelp, summary: Localized("help"),
                contexts: Set(KeyContext.allCases).subtracting(typing).subtracting([.help, .authorizationPrompt, .cancelPrompt, .merchantPrompt]),
                inFooter: true),
            KeyBinding(
                keys: [.character("L")], label: "L", action: .nextLanguage, summary: Localized("language"), contexts: browsing, inFooter: false),
            KeyBinding(
                keys: [.character("M")], label: "M", action: .nextMarket, summary: Localized("market and currency"), contexts: browsing,
                inFooter: false),
            KeyBinding(
                keys: [.character("q")], label: "q", action: .quit, summary: Localized("quit"),
                contexts: Set(KeyContext.allCases).subtracting(typing),
                inFooter: true),
        ]

    /// A key of a binding, and where the binding is in `table`.
    private struct KeyEntry: Sendable {
        var key: Key
        var binding: Int
    }

    /// Each context's keys, in table order, indexed by `KeyContext.rawValue`. A key is decoded and a footer
    /// chosen on every keystroke: scanning the whole table touched every binding's key array and context set.
    private static let keysByContext: [[KeyEntry]] = KeyContext.allCases.map { context in
        table.indices.filter { table[$0].contexts.contains(context) }.flatMap { index in table[index].keys.map { KeyEntry(key: $0, binding: index) } }
    }

    /// Each context's footer bindings, as indices into `table` in table order, indexed by `KeyContext.rawValue`.
    private static let footerByContext: [[Int]] = KeyContext.allCases.map { context in
        table.indices.filter { table[$0].inFooter && table[$0].contexts.contains(context) }
    }

    /// The action a key means in the current state, or nil when it means nothing there.
    public static func action(for key: Key, in state: StorefrontState) -> Action? {
        let context = KeyContext(state)
        for entry in keysByContext[context.rawValue] where entry.key == key && table[entry.binding].appliesWhen(state) {
            return table[entry.binding].action
        }
        if typing.contains(context), case .character(let character) = key, !character.isNewline {
            return .textInput(String(character))
        }
        return nil
    }

    /// The bindings for the footer of the current state, in table order.
    public static func footer(for state: StorefrontState) -> [KeyBinding] {
        footerIndices(for: state).map { table[$0] }
    }

    /// Where the footer's bindings are in `table`: what a frame compares to tell whether its footer changed.
    static func footerIndices(for state: StorefrontState) -> [Int] {
        footerByContext[KeyContext(state).rawValue].filter { table[$0].appliesWhen(state) }
    }

    /// Buy now is offered only where One-Tap is on and ready: otherwise the key and its hint are absent.
    private static let canBuyNow: @Sendable (StorefrontState) -> Bool = { state in
        switch state.screen {
        case .productDetail: state.productDetail?.canBuyNow ?? false
        case .cart: state.cart.canBuyNow
        default: false
        }
    }
}
