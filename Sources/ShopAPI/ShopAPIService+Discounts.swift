import Foundation
import ShopModels
import ShopPorts

/// The merchant's discount codes through the API, checked as `storefront discounts` checks them (`DiscountTerms`).
extension ShopAPIService {
    func listDiscounts(_ input: Operations.ListDiscounts.Input) async throws -> Operations.ListDiscounts.Output {
        _ = try APICaller.required(.merchant)
        let codes = try await Self.discounts(commerce).all()
        return .ok(.init(body: .json(.init(data: codes.map { APIModels.discount($0.code, uses: $0.uses) }))))
    }

    func createDiscount(_ input: Operations.CreateDiscount.Input) async throws -> Operations.CreateDiscount.Output {
        _ = try APICaller.required(.merchant)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let terms = DiscountTerms(
            percent: body.percent, amount: body.amount, freeShipping: body.freeShipping ?? false, from: body.startsAt, until: body.endsAt,
            uses: body.totalUses, perCustomer: body.usesPerCustomer, minimum: body.minimumSubtotal, only: body.onlyFor ?? [])
        let code: DiscountCode
        switch terms.code(body.code, currency: shop.catalog.shop.currency, spell: Self.fieldName) {
        case .success(let made): code = made
        case .failure(let problem):
            let field = Self.fieldName(problem.field)
            throw APIProblem(.validation, "\(field): \(problem.message).", errors: [.init(field: field, message: problem.message)])
        }
        let discounts = try Self.discounts(commerce)
        // The refusal is taken as a value: a typed catch of one case crashes this compiler (an ownership error).
        let refused: DiscountCodeError?
        do throws(DiscountCodeError) {
            try await discounts.create(code, at: commerce.now(), checkingAgainst: shop.catalog)
            refused = nil
        } catch {
            refused = error
        }
        if case .exists? = refused { throw APIProblem(.conflict, "A code named \(code.code) exists already.") }
        if case .unknownProducts? = refused, let refused {
            throw APIProblem(.validation, "onlyFor: \(refused).", errors: [.init(field: "onlyFor", message: "\(refused)")])
        }
        if let refused { throw refused }
        return .created(.init(body: .json(APIModels.discount(code, uses: 0))))
    }

    func setDiscountStatus(_ input: Operations.SetDiscountStatus.Input) async throws -> Operations.SetDiscountStatus.Output {
        _ = try APICaller.required(.merchant)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let discounts = try Self.discounts(commerce)
        let name = try Self.known(input.path.code)
        guard try await discounts.setPaused(name, body.status == .paused), let code = try await discounts.code(name) else {
            throw Self.noSuchCode(name)
        }
        let uses = try await discounts.all().first { $0.code.code == name }?.uses ?? 0
        return .ok(.init(body: .json(APIModels.discount(code, uses: uses))))
    }

    func deleteDiscount(_ input: Operations.DeleteDiscount.Input) async throws -> Operations.DeleteDiscount.Output {
        _ = try APICaller.required(.merchant)
        let name = try Self.known(input.path.code)
        let discounts = try Self.discounts(commerce)
        let deleted: Result<Bool, DiscountCodeError>
        do throws(DiscountCodeError) { deleted = .success(try await discounts.delete(name)) } catch { deleted = .failure(error) }
        if case .failure(.used) = deleted {
            throw APIProblem(.conflict, "Orders used \(name): pause it instead (PUT /v1/merchant/discounts/\(name)/status).")
        }
        guard try deleted.get() else { throw Self.noSuchCode(name) }
        return .noContent(.init())
    }

    /// A field of `NewDiscount` as the API spells it.
    static func fieldName(_ field: DiscountTerms.Field) -> String {
        switch field {
        case .code: "code"
        case .percent: "percent"
        case .amount: "amount"
        case .freeShipping: "freeShipping"
        case .from: "startsAt"
        case .until: "endsAt"
        case .uses: "totalUses"
        case .perCustomer: "usesPerCustomer"
        case .minimum: "minimumSubtotal"
        case .only: "onlyFor"
        }
    }

    private static func discounts(_ commerce: APICommerce) throws -> any DiscountCodes {
        guard let discounts = commerce.discounts else { throw APIProblem(.unavailable, "This server keeps no discount codes.", retryAfter: 30) }
        return discounts
    }

    /// The code a path names, upper-cased; text that cannot be a code is as unknown as a code the shop never had.
    private static func known(_ typed: String) throws -> String {
        guard let name = DiscountCode.normalized(typed) else { throw noSuchCode(String(typed.prefix(32))) }
        return name
    }

    private static func noSuchCode(_ name: String) -> APIProblem { APIProblem(.notFound, "No discount code \(name).") }
}

extension APIModels {
    static func discount(_ code: DiscountCode, uses: Int) -> Components.Schemas.Discount {
        var shown = Components.Schemas.Discount(
            code: code.code, kind: .freeShipping, startsAt: code.startsAt, endsAt: code.endsAt, totalUses: code.totalUses,
            usesPerCustomer: code.usesPerCustomer, minimumSubtotal: code.minimumSubtotal.map(money),
            onlyFor: code.onlyFor.map(\.rawValue).sorted(), status: code.isPaused ? .paused : .active, uses: uses)
        switch code.kind {
        case .percentage(let basisPoints):
            shown.kind = .percentage
            shown.basisPoints = basisPoints
        case .fixed(let amount):
            shown.kind = .fixed
            shown.amount = money(amount)
        case .freeShipping: break
        }
        return shown
    }
}
