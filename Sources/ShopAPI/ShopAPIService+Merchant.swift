import Foundation
import ShopModels
import ShopPorts

/// The merchant's changes to orders and stock, and the shopper's profile, through the API. Every order change goes
/// through the back office, recorded as made by the token's owner.
extension ShopAPIService {
    func deliverOrder(_ input: Operations.DeliverOrder.Input) async throws -> Operations.DeliverOrder.Output {
        let caller = try APICaller.required(.merchant)
        let order = try await change { backOffice throws(BackOfficeError) in
            try await backOffice.markDelivered(input.path.orderNumber, by: .merchant(caller.token.owner), expecting: nil)
        }
        return .ok(.init(body: .json(try await withHistory(order))))
    }

    func cancelOrder(_ input: Operations.CancelOrder.Input) async throws -> Operations.CancelOrder.Output {
        let caller = try APICaller.required(.merchant)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        try Self.requirePlainLine(body.reason, field: "reason")
        let order = try await change { backOffice throws(BackOfficeError) in
            try await backOffice.cancel(input.path.orderNumber, reason: body.reason, by: .merchant(caller.token.owner), expecting: nil)
        }
        return .ok(.init(body: .json(try await withHistory(order))))
    }

    func refundOrder(_ input: Operations.RefundOrder.Input) async throws -> Operations.RefundOrder.Output {
        let caller = try APICaller.required(.merchant)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        try Self.requirePlainLine(body.reason, field: "reason")
        let dossier: OrderDossier
        do { dossier = try await commerce.backOffice.dossier(input.path.orderNumber) } catch { throw Self.problem(error) }
        let currency = dossier.order.totals.total.currency
        let left = dossier.lifecycle?.refundable ?? .zero(currency)
        if let asked = body.amount, asked < 1 {
            throw APIProblem(.validation, "amount must be at least 1.", errors: [.init(field: "amount", message: "must be at least 1")])
        }
        let amount = body.amount.map { Money(minorUnits: $0, currency: currency) } ?? left
        let restock = (body.restock ?? []).map { Restock(productID: ProductID($0.productId), quantity: $0.quantity) }
        let ask = RefundAsk(amount: amount, restock: restock, reason: body.reason)
        // Expecting the status just read: a change in between is a 409, not a refund of an order that moved on.
        let order = try await change { backOffice throws(BackOfficeError) in
            try await backOffice.refund(input.path.orderNumber, ask, by: .merchant(caller.token.owner), expecting: dossier.order.status)
        }
        return .ok(.init(body: .json(try await withHistory(order))))
    }

    func listStock(_ input: Operations.ListStock.Input) async throws -> Operations.ListStock.Output {
        _ = try APICaller.required(.merchant)
        let levels: [StockLevel]
        do { levels = try await commerce.backOffice.stockLevels() } catch { throw Self.problem(error) }
        return .ok(.init(body: .json(.init(data: levels.map(APIModels.stock)))))
    }

    func setStock(_ input: Operations.SetStock.Input) async throws -> Operations.SetStock.Output {
        _ = try APICaller.required(.merchant)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        guard (0...1_000_000).contains(body.onHand) else {
            throw APIProblem(.validation, "onHand must be 0 to 1000000.", errors: [.init(field: "onHand", message: "must be 0 to 1000000")])
        }
        let level: StockLevel
        do {
            level = try await commerce.backOffice.setStock(of: ProductID(input.path.productId), onHand: body.onHand)
        } catch .stock(.unknownProduct(let id)) {
            throw APIProblem(.notFound, "No product has the id \"\(id.rawValue.prefix(100))\".")
        } catch {
            throw Self.problem(error)
        }
        return .ok(.init(body: .json(APIModels.stock(level))))
    }

    func getProfile(_ input: Operations.GetProfile.Input) async throws -> Operations.GetProfile.Output {
        let caller = try APICaller.required(.shop)
        let profile = try await commerce.profiles.profile(forCustomer: caller.token.owner)
        return .ok(.init(body: .json(.init(customer: caller.token.owner, name: profile?.name, email: profile?.email))))
    }

    func updateProfile(_ input: Operations.UpdateProfile.Input) async throws -> Operations.UpdateProfile.Output {
        let caller = try APICaller.required(.shop)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        var errors: [APIProblem.FieldError] = []
        let name = body.name?.trimmingCharacters(in: .whitespaces)
        if let name, name.isEmpty || name.count > 80 || !MerchantEntry.isPlainLine(name) {
            errors.append(.init(field: "name", message: "must be 1 to 80 characters on one line"))
        }
        if let email = body.email, let problem = Contact.emailProblem(email) { errors.append(.init(field: "email", message: problem.description)) }
        guard errors.isEmpty else {
            throw APIProblem(.validation, errors.map { "\($0.field): \($0.message)" }.joined(separator: " "), errors: errors)
        }
        try await commerce.profiles.save(
            AccountProfile(customerID: caller.token.owner, name: name, email: body.email?.trimmingCharacters(in: .whitespaces)))
        let profile = try await commerce.profiles.profile(forCustomer: caller.token.owner)
        return .ok(.init(body: .json(.init(customer: caller.token.owner, name: profile?.name, email: profile?.email))))
    }

    private func change(_ body: (any BackOffice) async throws(BackOfficeError) -> Order) async throws -> Order {
        do { return try await body(commerce.backOffice) } catch { throw Self.problem(error) }
    }

    func withHistory(_ order: Order) async throws -> Components.Schemas.Order {
        APIModels.order(order, events: try await commerce.orders.events(orderNumber: order.number))
    }

    static func requirePlainLine(_ text: String, field: String) throws {
        guard MerchantEntry.isPlainLine(text) else {
            throw APIProblem(
                .validation, "\(field) must be 1 to 100 characters on one line.",
                errors: [.init(field: field, message: "must be 1 to 100 characters on one line")])
        }
    }
}

extension APIModels {
    static func stock(_ level: StockLevel) -> Components.Schemas.StockLevel {
        .init(productId: level.productID.rawValue, name: level.name, onHand: level.onHand, reserved: level.reserved, sold: level.sold)
    }
}
