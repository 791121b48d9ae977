import Foundation
import ShopModels
import ShopPorts

/// The shopper's orders and the merchant's, through the API.
extension ShopAPIService {
    func createOrder(_ input: Operations.CreateOrder.Input) async throws -> Operations.CreateOrder.Output {
        let caller = try APICaller.required(.shop)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let desk = APIOrderDesk(shop: shop, commerce: commerce)
        // The key as it was sent: the generated code percent-decodes headers, and `pct-%41` is not `pct-A`.
        let placed = try await desk.place(
            .init(body),
            owner: caller.token.owner,
            key: APICaller.idempotencyKey ?? input.headers.idempotencyKey
        )
        switch placed {
        case .paid(let order):
            return .created(.init(body: .json(APIModels.order(order, events: try await commerce.orders.events(orderNumber: order.number)))))
        case .awaitingBankCheck(let order, let url):
            var shown = APIModels.order(order, events: try await commerce.orders.events(orderNumber: order.number))
            shown.nextAction = .init(_type: .redirectToUrl, url: url)
            return .accepted(.init(body: .json(shown)))
        }
    }

    func previewOrder(_ input: Operations.PreviewOrder.Input) async throws -> Operations.PreviewOrder.Output {
        let caller = try APICaller.required(.shop)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let preview = try await APIOrderDesk(shop: shop, commerce: commerce).preview(
            .init(body),
            owner: caller.token.owner)
        return .ok(.init(body: .json(preview)))
    }

    func listOrders(_ input: Operations.ListOrders.Input) async throws -> Operations.ListOrders.Output {
        let caller = try APICaller.required(.shop)
        let limit = try Paging.limit(input.query.limit)
        let offset = try Paging.offset(from: input.query.cursor, query: "orders")
        let total = try await commerce.orders.count(customer: caller.token.owner)
        let rows = try await commerce.orders.orders(customer: caller.token.owner, offset: offset, limit: limit)
        let next = offset + rows.count < total && !rows.isEmpty ? Paging.cursor(offset: offset + rows.count, query: "orders") : nil
        return .ok(.init(body: .json(.init(data: rows.map { APIModels.order($0, events: nil) }, totalCount: total, nextCursor: next))))
    }

    func getOrder(_ input: Operations.GetOrder.Input) async throws -> Operations.GetOrder.Output {
        let caller = try APICaller.required(.shop)
        // Someone else's order is as unknown as one that does not exist: its number tells nothing. One's own is shown
        // whatever came of it, so a client following a bank's check sees it paid, or voided when it was given up.
        guard var order = try await commerce.orders.order(number: input.path.orderNumber), order.customerID == caller.token.owner else {
            throw APIProblem(.notFound, "You have no order \(input.path.orderNumber.prefix(40)).")
        }
        if order.status.isOpen {
            // Still open (a bank's check under way): the provider is asked how it stands, so polling sees it end.
            _ = try? await commerce.openCharges.settleFromProvider(orderNumber: order.number)
            order = try await commerce.orders.order(number: order.number) ?? order
        }
        let events = try await commerce.orders.events(orderNumber: order.number)
        return .ok(.init(body: .json(APIModels.order(order, events: events))))
    }

    func listMerchantOrders(_ input: Operations.ListMerchantOrders.Input) async throws -> Operations.ListMerchantOrders.Output {
        _ = try APICaller.required(.merchant)
        let filter = OrderQueueFilter(rawValue: (input.query.status ?? .paid).rawValue) ?? .paid
        let limit = try Paging.limit(input.query.limit)
        let offset = try Paging.offset(from: input.query.cursor, query: "merchant:\(filter.rawValue)")
        let page: OrderQueuePage
        do { page = try await commerce.backOffice.queue(filter, offset: offset, limit: limit) } catch { throw Self.problem(error) }
        let next =
            offset + page.rows.count < page.total && !page.rows.isEmpty
            ? Paging.cursor(offset: offset + page.rows.count, query: "merchant:\(filter.rawValue)") : nil
        return .ok(.init(body: .json(.init(data: page.rows.map { APIModels.order($0, events: nil) }, totalCount: page.total, nextCursor: next))))
    }

    func shipOrder(_ input: Operations.ShipOrder.Input) async throws -> Operations.ShipOrder.Output {
        let caller = try APICaller.required(.merchant)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        var errors: [APIProblem.FieldError] = []
        for (field, value) in [("carrier", body.carrier), ("trackingNumber", body.trackingNumber)] where !MerchantEntry.isPlainLine(value) {
            errors.append(.init(field: field, message: "must be 1 to 100 characters on one line"))
        }
        if let url = body.trackingUrl, !MerchantEntry.isWebAddress(url) {
            errors.append(.init(field: "trackingUrl", message: "must be an http or https address of at most 300 characters"))
        }
        guard errors.isEmpty else {
            throw APIProblem(.validation, errors.map { "\($0.field): \($0.message)" }.joined(separator: " "), errors: errors)
        }
        let parcel = Shipment(
            carrier: body.carrier.trimmingCharacters(in: .whitespaces), trackingNumber: body.trackingNumber.trimmingCharacters(in: .whitespaces),
            trackingURL: body.trackingUrl)
        let order: Order
        do {
            order = try await commerce.backOffice.ship(input.path.orderNumber, parcel, by: .merchant(caller.token.owner), expecting: nil)
        } catch {
            throw Self.problem(error)
        }
        return .ok(.init(body: .json(try await withHistory(order))))
    }

    /// A back-office refusal as the API answers it: an unknown order 404, one that moved on 409, the rest 422.
    static func problem(_ error: BackOfficeError) -> APIProblem {
        switch error {
        case .change(.notFound(let number)): APIProblem(.notFound, "No order \(number.prefix(40)).")
        case .change(.changed(let now)): APIProblem(.conflict, "The order is \(now.displayName.lowercased()) now; read it again before changing it.")
        case .change(.refused(let refusal)): APIProblem(.conflict, refusal.description)
        case .change(.refundPending(let message)): APIProblem(.conflict, message)
        case .change(.storage(let message)), .stock(.storage(let message)): APIProblem(.unavailable, message, retryAfter: 30)
        default: APIProblem(.validation, error.description)
        }
    }
}
