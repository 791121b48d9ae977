import Clocks
import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import Testing

/// Adding a card on the payment service's own page: the link and its QR code, following the page, the card saved,
/// an expired page renewed, and Esc closing the page.
@MainActor
@Suite("Card page")
struct CardLinkTests {
    static let link = CardSetupLink(id: "cs_test_1", url: "https://checkout.stripe.test/c/pay/cs_test_1")
    static let card = PaymentMethod(
        id: "pm_added", network: .visa, lastFour: "4242", expiry: CardExpiry(month: 12, year: 2030), displayName: "Expires 12/30"
    )

    /// The card the page added is saved: the screen closes and says so.
    private static func receiveTheCardSaved(_ store: TestStore) async {
        await store.receive(.cardLink(.completed(card))) { $0.cardLink.link?.phase = .saving }
        await store.receive(.cardLink(.saved(card))) {
            $0.cardLink.link = nil
            $0.cardLink.page = nil
            $0.shell.route.removeLast()
            $0.shell.notice = Notice(.info, "Saved \(card.shortName).")
        }
    }

    private func store(_ page: CardPageStub, clock: any Clock<Duration> = ImmediateClock()) async -> (TestStore, TestStack) {
        var stack = TestStack(guestWallet: WalletContents(), clock: clock)
        stack.paymentProvider = PaymentProviderStub(cardPage: page)
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.showAccount)
        return (store, stack)
    }

    @Test func theCardAddedOnThePageIsSavedAndTheScreenCloses() async throws {
        let page = CardPageStub(links: [Self.link], states: [.open, .open, .completed(Self.card)])
        let (store, stack) = await store(page)
        store.send(.addCard) {
            $0.shell.route.append(.cardLink)
            $0.cardLink.link = CardLinkState(url: nil, qrCode: nil, phase: .opening)
        }
        let code = QRCodeStub().qrCode(for: Self.link.url)
        await store.receive(.cardLink(.opened(Self.link, code))) {
            $0.cardLink.page = Self.link
            $0.cardLink.link = CardLinkState(url: Self.link.url, qrCode: code, phase: .waiting)
        }
        await Self.receiveTheCardSaved(store)
        // The wallet's reload that follows belongs to the account screen's tests.
        await store.skipInFlightEffects()
        #expect(page.started == ["guest"])
        #expect(page.looks == ["cs_test_1", "cs_test_1", "cs_test_1"], "looked at once, then after each wait")
        #expect(try stack.wallets.wallet(forCustomer: "guest").cards == [Self.card])
        #expect(try stack.wallets.wallet(forCustomer: "guest").defaultCardID == "pm_added", "the first card is the default")
    }

    @Test func anExpiredPageSaysSoAndEnterMakesANewOne() async throws {
        let second = CardSetupLink(id: "cs_test_2", url: "https://checkout.stripe.test/c/pay/cs_test_2")
        let page = CardPageStub(links: [Self.link, second], states: [.expired, .completed(Self.card)])
        let (store, _) = await store(page)
        store.send(.addCard) {
            $0.shell.route.append(.cardLink)
            $0.cardLink.link = CardLinkState(url: nil, qrCode: nil, phase: .opening)
        }
        let codes = QRCodeStub()
        await store.receive(.cardLink(.opened(Self.link, codes.qrCode(for: Self.link.url)))) {
            $0.cardLink.page = Self.link
            $0.cardLink.link = CardLinkState(url: Self.link.url, qrCode: codes.qrCode(for: Self.link.url), phase: .waiting)
        }
        await store.receive(.cardLink(.expired)) {
            $0.cardLink.page = nil
            $0.cardLink.link?.phase = .expired
        }
        store.send(.confirm) { $0.cardLink.link = CardLinkState(url: nil, qrCode: nil, phase: .opening) }
        await store.receive(.cardLink(.opened(second, codes.qrCode(for: second.url)))) {
            $0.cardLink.page = second
            $0.cardLink.link = CardLinkState(url: second.url, qrCode: codes.qrCode(for: second.url), phase: .waiting)
        }
        await Self.receiveTheCardSaved(store)
        await store.skipInFlightEffects()
        #expect(page.looks == ["cs_test_1", "cs_test_2"])
    }

    @Test(.timeLimit(.minutes(10))) func escStopsFollowingAndClosesThePageAtTheProvider() async throws {
        let page = CardPageStub(links: [Self.link], states: [.open])
        let clock = SteppedClock()
        let (store, _) = await store(page, clock: clock)
        store.send(.addCard) {
            $0.shell.route.append(.cardLink)
            $0.cardLink.link = CardLinkState(url: nil, qrCode: nil, phase: .opening)
        }
        let code = QRCodeStub().qrCode(for: Self.link.url)
        await store.receive(.cardLink(.opened(Self.link, code))) {
            $0.cardLink.page = Self.link
            $0.cardLink.link = CardLinkState(url: Self.link.url, qrCode: code, phase: .waiting)
        }
        // The first look finds the page open; the next one waits on the clock, which is never moved.
        await clock.sleepers(atLeast: 1)
        try #require(page.looks == ["cs_test_1"])
        store.send(.back) {
            $0.cardLink.link = nil
            $0.cardLink.page = nil
            $0.shell.route.removeLast()
        }
        await store.finish()
        #expect(page.looks == ["cs_test_1"])
        #expect(page.canceled == ["cs_test_1"])
    }

    @Test func theSpinnerTurnsWhileTheShopperIsOnThePage() async throws {
        let page = CardPageStub(links: [Self.link], states: [.open])
        let clock = TestClock()
        let (store, _) = await store(page, clock: clock)
        store.send(.addCard) {
            $0.shell.route.append(.cardLink)
            $0.cardLink.link = CardLinkState(url: nil, qrCode: nil, phase: .opening)
        }
        let code = QRCodeStub().qrCode(for: Self.link.url)
        await store.receive(.cardLink(.opened(Self.link, code))) {
            $0.cardLink.page = Self.link
            $0.cardLink.link = CardLinkState(url: Self.link.url, qrCode: code, phase: .waiting)
        }
        #expect(store.state.screens.wantsTicks)
        store.send(.tick) { $0.spinnerPhase += 1 }
        await store.skipInFlightEffects()
    }
}
