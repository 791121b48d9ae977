import Foundation
import ShopModels

/// The shop's discount codes and their uses (`discount_code`, `discount_use`), the same on every host.
///
/// Order of calls at a checkout: `check` (the sheet shows what a code takes off) → the order begun with it, which
/// holds one use in the transaction reserving its stock (`OrderRepository.begin`), or is refused → the use let go as the
/// order is declined or canceled; a use held stays with a paid order, refunded or not.
public protocol DiscountCodes: Sendable {
    /// Files a new code; `.exists` when one has its name.
    func create(_ code: DiscountCode, at date: Date) async throws(DiscountCodeError)
    func code(_ name: String) async throws(DiscountCodeError) -> DiscountCode?
    /// Every code with its uses held, by name.
    func all() async throws(DiscountCodeError) -> [(code: DiscountCode, uses: Int)]
    /// Pauses or resumes a code; false for no such code.
    func setPaused(_ name: String, _ paused: Bool) async throws(DiscountCodeError) -> Bool
    /// Deletes a code no order used; `.used` when one did (pause it instead: the orders name it).
    func delete(_ name: String) async throws(DiscountCodeError) -> Bool
    /// Uses held of `name`: in all, and by `customer`.
    func uses(of name: String, customer: String) async throws(DiscountCodeError) -> (inAll: Int, byCustomer: Int)
}

/// Why a discount code could not be filed, changed or read.
public enum DiscountCodeError: Error, Hashable, Sendable, CustomStringConvertible {
    case exists(String)
    case used(String)
    /// The code is only for products the catalog does not have: it would never apply.
    case unknownProducts([String])
    case storage(String)

    public var description: String {
        switch self {
        case .exists(let code): "a code named \(code) exists already"
        case .unknownProducts(let ids): "the catalog has no product \(ids.joined(separator: ", ")): a code only for it would never apply"
        case .used(let code): "orders used \(code): pause it instead (storefront discounts pause \(code))"
        case .storage(let why): why
        }
    }
}

extension DiscountCodes {
    /// Files `code` once every product or variant it is only for is one `catalog` has (an id, or a variant's SKU):
    /// the one check every front (the command, the console, the API) makes before a code is made.
    public func create(_ code: DiscountCode, at date: Date, checkingAgainst catalog: any CatalogRepository) async throws(DiscountCodeError) {
        var missing = Set(code.onlyFor)
        // Products by their id first, one indexed read each; only names left over (variants' SKUs) read the catalog
        // a page at a time, until every one is found or the pages end.
        for id in missing {
            let found: Product?
            do { found = try await catalog.product(id: id) } catch { throw .storage("\(error)") }
            if found != nil { missing.remove(id) }
        }
        var offset = 0
        while !missing.isEmpty {
            let page: [Product]
            do { page = try await catalog.page(matching: "", offset: offset, limit: 500) } catch { throw .storage("\(error)") }
            for product in page {
                missing.remove(product.id)
                for variant in product.variants { missing.remove(variant.sku) }
            }
            if page.count < 500 { break }
            offset += page.count
        }
        guard missing.isEmpty else { throw .unknownProducts(missing.map(\.rawValue).sorted()) }
        try await create(code, at: date)
    }

    /// The code `typed` names as the shop has it, holding at `date` with a use left for `customer`, or why not. Text
    /// that cannot be a code, an unknown code and a paused one answer alike. The payment sheet and the API check a typed
    /// code through this; whether a use is still left is decided again as the order is begun.
    public func check(_ typed: String, customer: String, at date: Date) async throws(DiscountCodeError) -> Result<DiscountCode, DiscountRefusal> {
        guard let name = DiscountCode.normalized(typed), let code = try await code(name) else { return .failure(.unknown) }
        let uses = try await uses(of: name, customer: customer)
        return code.refusal(at: date, usedInAll: uses.inAll, usedByCustomer: uses.byCustomer, customer: customer).map { .failure($0) }
            ?? .success(code)
    }
}
