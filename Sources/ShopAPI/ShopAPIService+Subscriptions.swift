import Foundation
import ShopModels
import ShopPorts

/// The merchant's subscriptions through the API: by state, one with its history, a cancel, the renewals to come. The
/// same store calls as `storefront subscriptions`.
extension ShopAPIService {
    func listSubscriptions(_ input: Operations.ListSubscriptions.Input) async throws -> Operations.ListSubscriptions.Output {
        _ = try APICaller.required(.merchant)
        let status = input.query.status.flatMap { SubscriptionStatus(rawValue: $0.rawValue) }
        let query = "subscriptions:\(status?.rawValue ?? "all")"
        let limit = try Paging.limit(input.query.limit)
        let offset = try Paging.offset(from: input.query.cursor, query: query)
        // One more than the page: whether another page follows, without counting them all.
        let rows = try await Self.subscriptions(commerce).subscriptions(status: status, offset: offset, limit: limit + 1)
        let next = rows.count > limit ? Paging.cursor(offset: offset + limit, query: query) : nil
        return .ok(.init(body: .json(.init(data: rows.prefix(limit).map { APIModels.subscription($0, history: nil) }, nextCursor: next))))
    }

    func getSubscription(_ input: Operations.GetSubscription.Input) async throws -> Operations.GetSubscription.Output {
        _ = try APICaller.required(.merchant)
        let store = try Self.subscriptions(commerce)
        guard let subscription = try await store.subscription(id: input.path.subscriptionId) else {
            throw Self.noSuchSubscription(input.path.subscriptionId)
        }
        return .ok(.init(body: .json(APIModels.subscription(subscription, history: try await store.history(of: subscription.id)))))
    }

    func cancelSubscription(_ input: Operations.CancelSubscription.Input) async throws -> Operations.CancelSubscription.Output {
        let caller = try APICaller.required(.merchant)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let store = try Self.subscriptions(commerce)
        let id = input.path.subscriptionId
        guard try await store.subscription(id: id) != nil else { throw Self.noSuchSubscription(id) }
        let change: SubscriptionChange = body.when == .periodEnd ? .cancelAtPeriodEnd : .cancelNow
        let changed = try await store.change(id, change, by: "merchant:\(caller.token.owner)", at: commerce.now()).mapError {
            APIProblem(.conflict, "Subscription \(id.prefix(100)): \($0.line)")
        }.get()
        return .ok(.init(body: .json(APIModels.subscription(changed, history: try await store.history(of: id)))))
    }

    func listUpcomingRenewals(_ input: Operations.ListUpcomingRenewals.Input) async throws -> Operations.ListUpcomingRenewals.Output {
        _ = try APICaller.required(.merchant)
        let days = input.query.days ?? 30
        guard (1...366).contains(days) else {
            throw APIProblem(.invalidRequest, "days must be between 1 and 366.", errors: [.init(field: "days", message: "must be 1 to 366")])
        }
        let renewals = try await Self.subscriptions(commerce).upcomingRenewals(catalog: shop.catalog, from: commerce.now(), days: days)
        let totals = UpcomingRenewal.goodsTotals(renewals).map(APIModels.money)
        let data = renewals.map {
            Components.Schemas.UpcomingRenewal(
                at: $0.at, subscription: $0.subscription.id, customer: $0.subscription.customerID, goods: $0.goods.map(APIModels.money))
        }
        return .ok(.init(body: .json(.init(data: data, goods: totals))))
    }

    private static func subscriptions(_ commerce: APICommerce) throws -> any SubscriptionRepository {
        guard let store = commerce.subscriptions else { throw APIProblem(.unavailable, "This server keeps no subscriptions.", retryAfter: 30) }
        return store
    }

    private static func noSuchSubscription(_ id: String) -> APIProblem { APIProblem(.notFound, "No subscription \(id.prefix(100)).") }
}

extension APIModels {
    static func subscription(_ s: Subscription, history: [SubscriptionEvent]?) -> Components.Schemas.Subscription {
        .init(
            id: s.id, status: .init(rawValue: s.status.rawValue) ?? .active, customer: s.customerID, productId: s.productID.rawValue,
            sku: s.variantSKU?.rawValue, quantity: s.quantity, intervalWeeks: s.intervalWeeks, period: s.period, renewsAt: s.renewsAt, dueAt: s.dueAt,
            failedAttempts: s.failedAttempts, skipsNext: s.skipsNext, endsAtPeriodEnd: s.endsAtPeriodEnd,
            reminders: s.remindersStopped == nil, card: s.cardDescription,
            shipTo: s.shipTo.shipToLine,
            history: history?.map { .init(at: $0.at, actor: $0.actor, kind: $0.kind, detail: $0.detail) })
    }
}
