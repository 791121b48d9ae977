import Foundation
import ShopModels
import ShopPorts

/// The shopper's own subscriptions through the API: listed, read with their history, and changed through the same
/// store operation as the account screen. Another customer's subscription reads as none.
extension ShopAPIService {
    func listMySubscriptions(_ input: Operations.ListMySubscriptions.Input) async throws -> Operations.ListMySubscriptions.Output {
        let caller = try APICaller.required(.shop)
        let rows = try await Self.shoppersSubscriptions(commerce).subscriptions(customer: caller.token.owner)
        return .ok(.init(body: .json(.init(data: rows.map { APIModels.subscription($0, history: nil) }))))
    }

    func getMySubscription(_ input: Operations.GetMySubscription.Input) async throws -> Operations.GetMySubscription.Output {
        let caller = try APICaller.required(.shop)
        let store = try Self.shoppersSubscriptions(commerce)
        let id = input.path.subscriptionId
        guard let subscription = try await store.subscription(id: id), subscription.customerID == caller.token.owner else {
            throw Self.notYours(id)
        }
        return .ok(.init(body: .json(APIModels.subscription(subscription, history: try await store.history(of: id)))))
    }

    func changeMySubscription(_ input: Operations.ChangeMySubscription.Input) async throws -> Operations.ChangeMySubscription.Output {
        let caller = try APICaller.required(.shop)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let store = try Self.shoppersSubscriptions(commerce)
        let (id, owner) = (input.path.subscriptionId, caller.token.owner)
        guard let current = try await store.subscription(id: id), current.customerID == owner else { throw Self.notYours(id) }
        let change = try await Self.change(body, owner: owner, commerce: commerce)
        if case .shipTo(let contact) = change, let refusal = current.shipToRefusal(contact, shop: shop.catalog.shop) {
            throw APIProblem(.validation, "addressId: \(refusal.line)", errors: [.init(field: "addressId", message: refusal.line)])
        }
        let offered = try await shop.catalog.product(id: current.productID)?.subscriptionWeeks ?? []
        switch try await store.change(id, change, offered: offered, by: "shopper:\(owner)", owner: owner, at: commerce.now()) {
        case .success(let changed):
            return .ok(.init(body: .json(APIModels.subscription(changed, history: try await store.history(of: id)))))
        case .failure(let refusal):
            throw APIProblem(.conflict, refusal.line)
        }
    }

    /// The change `body` asks for, its address or card found in the owner's wallet; a 422 naming the field missing.
    private static func change(
        _ body: Components.Schemas.SubscriptionChangeRequest, owner: String, commerce: APICommerce
    ) async throws -> SubscriptionChange {
        func missing(_ field: String, _ why: String) -> APIProblem {
            APIProblem(.validation, "\(field): \(why).", errors: [.init(field: field, message: why)])
        }
        switch body.change {
        case .skipNext: return .skipNext
        case .keepNext: return .keepNext
        case .pause: return .pause
        case .resume: return .resume
        case .cancelAtPeriodEnd: return .cancelAtPeriodEnd
        case .cancelNow: return .cancelNow
        case .stopReminders: return .reminders(on: false)
        case .startReminders: return .reminders(on: true)
        case .interval:
            guard let weeks = body.intervalWeeks else { throw missing("intervalWeeks", "is required for an interval change") }
            return .interval(weeks: weeks)
        case .shipTo:
            guard let id = body.addressId else { throw missing("addressId", "is required to change the address") }
            let wallet = try await commerce.wallets.wallet(forCustomer: owner)
            guard let address = wallet.addresses.first(where: { $0.id == id }) else {
                throw missing("addressId", "no saved address has the id \"\(id.prefix(100))\"")
            }
            return .shipTo(address)
        case .card:
            guard let id = body.cardId else { throw missing("cardId", "is required to change the card") }
            let wallet = try await commerce.wallets.wallet(forCustomer: owner)
            guard let card = wallet.cards.filter(commerce.provider.canCharge).first(where: { $0.id == id }) else {
                throw missing("cardId", "no saved card this shop can charge has the id \"\(id.prefix(100))\"")
            }
            return .card(id: card.id, description: card.shortName)
        }
    }

    private static func shoppersSubscriptions(_ commerce: APICommerce) throws -> any SubscriptionRepository {
        guard let store = commerce.subscriptions else { throw APIProblem(.unavailable, "This server keeps no subscriptions.", retryAfter: 30) }
        return store
    }

    /// Someone else's subscription is as unknown as one that does not exist: its id tells nothing.
    private static func notYours(_ id: String) -> APIProblem { APIProblem(.notFound, "You have no subscription \(id.prefix(100)).") }
}
