import CustomDump
import Foundation
import GRDB
import ShopApplication
import ShopModels
import ShopPorts
import ShopSandbox
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import Testing

/// The merchant console and the shopper's cancel, one action at a time: each change is asked, confirmed with
/// Enter, made through the back office, and the order read again.
@MainActor
@Suite("Merchant console")
struct MerchantConsoleTests {
    static let parcel = Shipment(carrier: "UPS", trackingNumber: "1Z999", trackingURL: "https://ups.example/1Z999")

    /// A stack with one paid order of two root Hoodies (charged in the sandbox's ledger), and its back office.
    static func stackWithPaidOrder(console: Console = .merchant(name: "local:ops")) async throws -> (TestStack, Order) {
        var stack = TestStack()
        let line = CartLine(productID: "hoodie-root", name: "root Hoodie", unitPrice: Money(minorUnits: 8_900, currency: .usd), quantity: 2)
        let shop = stack.catalog.shop
        let draft = OrderDraft(
            lines: [line], totals: shop.estimatedTotals(Cart(currency: .usd, lines: [line])),
            shippingMethod: Fixtures.standardShipping, shippingContact: Fixtures.jane, customerID: "guest",
            tax: shop.estimate(for: Cart(currency: .usd, lines: [line])).tax
        )
        let order = try await stack.orders.begin(
            draft, idempotencyKey: "k1", tokenID: "t", paymentDescription: "Visa ••4242", placedAt: Fixtures.fixedDates.now())
        _ = try await stack.processor.ledger.record(LedgerCharge(key: "k1", tokenID: "t", amount: order.totals.total, outcome: .succeeded))
        try await stack.orders.finish(orderNumber: order.number, status: .paid, failure: nil, at: Fixtures.fixedDates.now())
        stack.console = console
        // The shop keeps stock of the hoodie alone, one left, so the stock screen has one row.
        try await stack.database.pool.write { try $0.execute(sql: "DELETE FROM stock WHERE product_id <> 'hoodie-root'") }
        let stock = SQLStockRepository(database: stack.database)
        #expect(
            try await stock.setStock(of: "hoodie-root", onHand: 1)
                == StockLevel(productID: "hoodie-root", name: "root Hoodie", onHand: 1, reserved: 0, sold: 2))
        stack.backOffice = LiveBackOffice(
            orders: stack.orders, stock: stock,
            processor: stack.processor, mail: SQLOutbox(database: stack.database), dates: Fixtures.fixedDates, currency: .usd)
        return (stack, try #require(try await stack.orders.order(number: order.number)))
    }

    @Test func theConsoleOpensOnTheOrdersToShipOldestFirst() async throws {
        let (stack, order) = try await Self.stackWithPaidOrder()
        let store = await TestStore(dependencies: stack.dependencies)
        #expect(store.state.route == [.merchantQueue])
        #expect(store.state.merchant?.console.filter == .paid)
        #expect(store.state.merchant?.console.queue.rows == [order])
        #expect(store.state.merchant?.console.queue.totalCount == 1)
        // Tab: the next status; nothing is shipped yet.
        store.send(.nextFilter) {
            $0.merchant!.console.filter = .shipped
            $0.merchant!.console.queue = OrderListState()
            $0.merchant!.console.queue.isLoading = true
            $0.merchant!.console.request += 1
        }
        await store.receive(.merchant(.queue(request: 2, .success(OrderQueuePage(total: 0, start: 0, rows: []))))) {
            $0.merchant!.console.queue.isLoading = false
        }
        await store.finish()
    }

    /// The console is a root of its own: a shop feature's action reaching it changes nothing and starts nothing, and
    /// the shop's keys (c, the cart) are not its keys.
    @Test func theConsoleRunsNoShopFeature() async throws {
        let (stack, _) = try await Self.stackWithPaidOrder()
        let store = await TestStore(dependencies: stack.dependencies)
        let hoodie = try #require(try await stack.catalog.product(id: ProductID("hoodie-root")))
        try store.send(.cart(.add(hoodie)))
        try store.send(.productList(.delegate(.openProduct(hoodie))))
        try store.send(.account(.reloadWallet))
        try store.send(.showCart)
        #expect(store.state.route == [.merchantQueue])
        await store.finish()
    }

    @Test func shippingIsEnteredConfirmedAndRecordedAsTheMerchants() async throws {
        let (stack, order) = try await Self.stackWithPaidOrder()
        let store = await TestStore(dependencies: stack.dependencies)
        store.send(.confirm) { $0.shell.route = [.merchantQueue, .merchantOrder] }
        let dossier = try await stack.backOffice.dossier(order.number)
        await store.receive(.merchant(.dossier(.success(dossier)))) { $0.merchant!.console.dossier = dossier }
        #expect(store.state.merchant?.console.canShip == true && store.state.merchant?.console.canMarkDelivered == false)

        store.send(.ship) {
            $0.shell.route.append(.form)
            $0.shell.form = store.state.form
        }
        #expect(store.state.form?.purpose == .shipOrder)
        // A carrier with a line break is refused in place; nothing is asked.
        store.send(.textInput("UPS\n")) { $0.shell.form?.fields[0].value = "UPS\n" }
        store.send(.confirm) { $0.shell.form?.focusedIndex = 1 }
        store.send(.textInput("1Z999")) { $0.shell.form?.fields[1].value = "1Z999" }
        store.send(.confirm) { $0.shell.form?.focusedIndex = 2 }
        store.send(.textInput("https://ups.example/1Z999")) { $0.shell.form?.fields[2].value = "https://ups.example/1Z999" }
        store.send(.confirm) {
            $0.shell.form?.fields[0].error = "Enter 1 to 100 characters on one line."
            $0.shell.form?.focusedIndex = 0
        }
        store.send(.deleteBackward) {
            $0.shell.form?.fields[0].value = "UPS"
            $0.shell.form?.fields[0].error = nil
        }
        store.send(.nextField) { $0.shell.form?.focusedIndex = 1 }
        store.send(.nextField) { $0.shell.form?.focusedIndex = 2 }
        store.send(.confirm) {
            $0.shell.form = nil
            $0.shell.route = [.merchantQueue, .merchantOrder]
            $0.merchant!.console.prompt = MerchantPrompt(
                change: .ship(Self.parcel),
                lines: [
                    "Ship \(order.number) with UPS, tracking 1Z999?", "The shopper follows it at https://ups.example/1Z999.",
                ])
        }
        store.send(.confirm) { $0.merchant!.console.prompt?.isWorking = true }
        let shipped = try #require(
            try await stack.orders.order(number: order.number).map { order -> Order in
                var order = order
                order.status = .shipped
                return order
            })
        await store.receive(.merchant(.changed(.ship(Self.parcel), .success(shipped)))) {
            $0.merchant!.console.prompt = nil
            $0.shell.notice = Notice(.info, "\(order.number) is shipped.")
        }
        let after = try await stack.backOffice.dossier(order.number)
        #expect(after.events.last == OrderEvent(at: Fixtures.fixedDates.now(), actor: .merchant("local:ops"), change: .shipped(Self.parcel)))
        await store.receive(.merchant(.dossier(.success(after)))) { $0.merchant!.console.dossier = after }
        await store.finish()
    }

    @Test func escapeAtThePromptChangesNothing() async throws {
        let (stack, order) = try await Self.stackWithPaidOrder()
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.confirm)
        store.send(.cancelOrder) {
            $0.merchant!.console.prompt = MerchantPrompt(
                change: .cancel,
                lines: [
                    "Cancel \(order.number)?", "\(order.totals.total.formatted) goes back to Visa ••4242, and every line goes back in stock.",
                ])
        }
        store.send(.back) {
            $0.merchant!.console.prompt = nil
            $0.shell.notice = Notice(.info, "Nothing was changed.")
        }
        #expect(try await stack.orders.order(number: order.number)?.status == .paid)
        #expect(await stack.processor.allRefunds.isEmpty)
        await store.finish()
    }

    @Test func aRefundOfOneLineWithRestockGoesThroughThePrompt() async throws {
        let (stack, order) = try await Self.stackWithPaidOrder()
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.confirm)
        let dossier = try #require(store.state.merchant?.console.dossier)
        store.send(.refund) {
            $0.shell.route.append(.merchantRefund)
            $0.merchant!.console.refund = RefundDraft(dossier: dossier, refundable: order.totals.total)
        }
        store.send(.increaseQuantity) { $0.merchant!.console.refund?.quantities = [1] }
        let amount = order.refundAmount(for: ["hoodie-root": 1])
        #expect(store.state.merchant?.console.refund?.amount == amount)
        await store.setUp(.confirm)
        #expect(store.state.form?.purpose == .refundDetails)
        #expect(store.state.form?.fields.map(\.value) == ["96.34", "requested by the customer"])
        await store.setUp(.confirm, .confirm)
        #expect(
            store.state.merchant?.console.prompt?.change
                == .refund(RefundAsk(amount: amount, restock: [Restock(productID: "hoodie-root", quantity: 1)], reason: "requested by the customer")))
        await store.setUp(.confirm)
        #expect(store.state.route == [.merchantQueue, .merchantOrder], "back on the order once refunded")
        #expect(store.state.merchant?.console.dossier?.order.status == .partiallyRefunded)
        #expect(store.state.notice == Notice(.info, "\(amount.formatted) of \(order.number) is refunded."))
        #expect(await stack.processor.allRefunds.map(\.amount) == [amount])
        #expect(try await stack.orders.refunds(orderNumber: order.number).map(\.ask.restock) == [[Restock(productID: "hoodie-root", quantity: 1)]])
    }

    @Test func aRefundAmountAboveWhatIsLeftIsRefusedInPlace() async throws {
        let (stack, order) = try await Self.stackWithPaidOrder()
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.confirm, .refund, .confirm)
        store.send(.textInput("999")) { $0.shell.form?.fields[0].value = "999" }
        await store.setUp(.confirm)
        #expect(store.state.form?.focusedIndex == 1, "Enter moves to the reason first")
        await store.setUp(.confirm)
        #expect(store.state.form?.fields[0].error == "At most \(order.totals.total.formatted) is left to refund.")
        #expect(store.state.merchant?.console.prompt == nil)
    }

    @Test func theStockScreenAdjustsAndSetsCounts() async throws {
        let (stack, _) = try await Self.stackWithPaidOrder()
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.showStock)
        #expect(store.state.route == [.merchantQueue, .merchantStock])
        #expect(store.state.merchant?.console.stock.levels.map(\.onHand) == [1])
        await store.setUp(.increaseQuantity)
        #expect(store.state.merchant?.console.stock.levels.map(\.onHand) == [2])
        await store.setUp(.confirm, .deleteBackward)
        store.send(.textInput("-3")) { $0.shell.form?.fields[0].value = "-3" }
        await store.setUp(.confirm)
        #expect(store.state.form?.fields[0].error == "Enter a whole number from 0 to 1,000,000.")
        await store.setUp(.deleteBackward, .deleteBackward, .textInput("7"), .confirm)
        #expect(store.state.merchant?.console.stock.levels.map(\.onHand) == [7])
        await store.setUp(.toggleLowStock)
        #expect(store.state.merchant?.console.stock.shown.isEmpty == true, "7 is over the low-stock line of 5")
    }

    @Test func theSalesSummaryCountsTodayAndTheWeek() async throws {
        let (stack, order) = try await Self.stackWithPaidOrder()
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.showSales)
        let figures = SalesFigures(
            orders: 1, revenue: order.totals.total, refunds: .zero(.usd),
            taxes: [JurisdictionTax(jurisdiction: "US", label: "Sales tax", amount: order.totals.tax)])
        #expect(store.state.merchant?.console.sales == SalesSummary(today: figures, lastSevenDays: figures))
    }

    @Test func theShopperCancelsTheirUnshippedOrderAfterConfirming() async throws {
        var (stack, order) = try await Self.stackWithPaidOrder(console: .shop)
        stack.backOffice = stack.liveBackOffice
        let store = await TestStore(dependencies: stack.dependencies)
        await store.setUp(.showOrders, .confirm)
        #expect(store.state.canCancelOpenedOrder)
        store.send(.cancelOrder) { $0.orders.cancel = .confirming }
        store.send(.confirm) { $0.orders.cancel = .canceling }
        var canceled = order
        canceled.status = .canceled
        await store.receive(.orders(.canceled(order: order.number, .success(canceled)))) {
            $0.orders.cancel = nil
            $0.orders.detail = canceled
            $0.shell.notice = Notice(.info, "Order \(order.number) is canceled. The refund goes back to Visa ••4242.")
            $0.orders.list.rows = [canceled]
        }
        let events = try await stack.orders.events(orderNumber: order.number)
        #expect(events.last == OrderEvent(at: Fixtures.fixedDates.now(), actor: .shopper("guest"), change: .canceled))
        await store.receive(.orders(.history(order: order.number, .success(events)))) { $0.orders.events = events }
        let messages = try await stack.storage.outbox.entries(orderNumber: order.number)
        #expect(messages.count == 2, "the receipt, then the cancel's notice")
        await store.receive(.orders(.messages(order: order.number, messages))) { $0.orders.messages = messages }
        await store.finish()
        #expect(await stack.processor.allRefunds.map(\.amount) == [order.totals.total])
        #expect(!store.state.canCancelOpenedOrder, "nothing is left to cancel")
    }
}
