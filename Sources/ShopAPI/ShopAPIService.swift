import Foundation
import OpenAPIRuntime
import ShopIdentity
import ShopModels
import ShopPorts

/// What the API reads and writes: the same repositories the SSH shop uses.
package struct APIShop: Sendable {
    package var catalog: any CatalogRepository
    package var carts: any CartRepository

    package init(catalog: any CatalogRepository, carts: any CartRepository) {
        self.catalog = catalog
        self.carts = carts
    }
}

/// The API's operations, each on the shop's repositories, as the caller `TokenGate` checked.
struct ShopAPIService: APIProtocol {
    let shop: APIShop
    let commerce: APICommerce

    /// The document, decoded once: it is served as the generated code's JSON object.
    private static let document: OpenAPIObjectContainer = {
        (try? JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(EmbeddedText.openapi_json.utf8))) ?? OpenAPIObjectContainer()
    }()

    /// The document as the server serves it.
    static var documentJSON: [UInt8] { Array(EmbeddedText.openapi_json.utf8) }

    func getOpenAPIDocument(_ input: Operations.GetOpenAPIDocument.Input) async throws -> Operations.GetOpenAPIDocument.Output {
        .ok(.init(body: .json(Self.document)))
    }

    // MARK: Products

    func listProducts(_ input: Operations.ListProducts.Input) async throws -> Operations.ListProducts.Output {
        _ = try APICaller.required(.shop)
        let query = input.query.q ?? ""
        let limit = try Paging.limit(input.query.limit)
        let offset = try Paging.offset(from: input.query.cursor, query: query)
        let total = try await shop.catalog.count(matching: query)
        let products = try await shop.catalog.page(matching: query, offset: offset, limit: limit)
        let next = offset + products.count < total && !products.isEmpty ? Paging.cursor(offset: offset + products.count, query: query) : nil
        return .ok(.init(body: .json(.init(data: products.map(APIModels.product), totalCount: total, nextCursor: next))))
    }

    func getProduct(_ input: Operations.GetProduct.Input) async throws -> Operations.GetProduct.Output {
        _ = try APICaller.required(.shop)
        let product = try await existingProduct(input.path.productId)
        return .ok(.init(body: .json(APIModels.product(product))))
    }

    // MARK: Cart

    func getCart(_ input: Operations.GetCart.Input) async throws -> Operations.GetCart.Output {
        let caller = try APICaller.required(.shop)
        let lines = try await shop.carts.lines(forCustomer: caller.token.owner)
        return .ok(.init(body: .json(APIModels.cart(lines, currency: shop.catalog.shop.currency))))
    }

    func clearCart(_ input: Operations.ClearCart.Input) async throws -> Operations.ClearCart.Output {
        let caller = try APICaller.required(.shop)
        try await shop.carts.save([], forCustomer: caller.token.owner)
        return .ok(.init(body: .json(APIModels.cart([], currency: shop.catalog.shop.currency))))
    }

    func setCartLine(_ input: Operations.SetCartLine.Input) async throws -> Operations.SetCartLine.Output {
        let caller = try APICaller.required(.shop)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let quantity = body.quantity
        guard quantity == 0 || CartLine.quantityRange.contains(quantity) else {
            throw APIProblem(
                .validation, "A line holds 0 to \(CartLine.quantityRange.upperBound) of a product.",
                errors: [.init(field: "quantity", message: "must be 0 to \(CartLine.quantityRange.upperBound), not \(quantity)")])
        }
        let whole = try await existingProduct(input.path.productId)
        let product = try Self.purchase(whole, sku: body.sku)
        let name = product.variants.first.map { CartLine.name(product.name, $0.title) } ?? product.name
        if let stock = product.stock, quantity > stock {
            let left = stock == 0 ? "it is sold out" : "only \(stock) left"
            throw APIProblem(
                .validation, "\(name): \(left).", errors: [.init(field: "quantity", message: "at most \(stock), the stock on hand")])
        }
        var lines = try await shop.carts.lines(forCustomer: caller.token.owner)
        let line = quantity == 0 ? nil : CartLine(product: product, variant: product.variants.first, quantity: quantity)
        if let index = lines.firstIndex(where: { $0.stockKey == product.stockKey }) {
            if let line { lines[index] = line } else { lines.remove(at: index) }
        } else if let line {
            lines.append(line)
        }
        let cart = Cart(currency: shop.catalog.shop.currency, lines: lines)
        guard cart.subtotal.isWithinMaximum else {
            throw APIProblem(
                .validation, "The cart would cost more than the shop takes in one order.",
                errors: [.init(field: "quantity", message: "makes the cart too costly")])
        }
        try await shop.carts.save(lines, forCustomer: caller.token.owner)
        return .ok(.init(body: .json(APIModels.cart(lines, currency: shop.catalog.shop.currency))))
    }

    /// The product as the line buys it: the variant `sku` names, which a product with options requires.
    static func purchase(_ product: Product, sku: String?) throws -> Product {
        guard product.hasVariants else {
            guard sku == nil || sku == product.id.rawValue else {
                throw APIProblem(
                    .validation, "\(product.name) has no variants.", errors: [.init(field: "sku", message: "leave it out for this product")])
            }
            return product
        }
        let skus = product.variants.map(\.sku.rawValue).joined(separator: ", ")
        guard let sku else {
            throw APIProblem(
                .validation, "Choose a variant of \(product.name).", errors: [.init(field: "sku", message: "required; one of \(skus)")])
        }
        guard let variant = product.variants.first(where: { $0.sku.rawValue == sku }) else {
            throw APIProblem(
                .validation, "\(product.name) has no variant \"\(sku.prefix(100))\".", errors: [.init(field: "sku", message: "one of \(skus)")])
        }
        return product.narrowed(to: variant)
    }

    private func existingProduct(_ id: String) async throws -> Product {
        guard let product = try await shop.catalog.product(id: ProductID(id)) else {
            throw APIProblem(.notFound, "No product has the id \"\(id.prefix(100))\".")
        }
        return product
    }
}

/// The cursors of paged lists: opaque to clients, and tied to the query they were made for.
enum Paging {
    static let defaultLimit = 20
    static let maximumLimit = 100
    /// The furthest a cursor may point: far past any shop's list, and far from overflowing `offset + limit`.
    static let maximumOffset = 1_000_000_000

    static func limit(_ asked: Int?) throws -> Int {
        guard let asked else { return defaultLimit }
        guard (1...maximumLimit).contains(asked) else {
            throw APIProblem(.invalidRequest, "limit must be 1 to \(maximumLimit), not \(asked).")
        }
        return asked
    }

    static func cursor(offset: Int, query: String) -> String {
        Encodings.base64URL(Data("v1:\(offset):\(query)".utf8))
    }

    static func offset(from cursor: String?, query: String) throws -> Int {
        guard let cursor else { return 0 }
        guard let data = Encodings.decodeBase64URL(cursor), let text = String(data: data, encoding: .utf8) else {
            throw APIProblem(.invalidRequest, "This cursor was not made by this API; give back a page's nextCursor as it came.")
        }
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", let offset = Int(parts[1]), (0...maximumOffset).contains(offset) else {
            throw APIProblem(.invalidRequest, "This cursor was not made by this API; give back a page's nextCursor as it came.")
        }
        guard parts[2] == query else {
            throw APIProblem(.invalidRequest, "This cursor belongs to another search; ask with the q it was made for.")
        }
        return offset
    }
}

/// The shop's values as the API's schemas.
enum APIModels {
    static func money(_ money: Money) -> Components.Schemas.Money {
        .init(amount: money.minorUnits, currency: money.currency.code)
    }

    static func product(_ product: Product) -> Components.Schemas.Product {
        .init(
            id: product.id.rawValue, name: product.name, summary: product.summary, description: product.description,
            price: money(product.price), tags: product.tags, stock: product.stock,
            options: product.options.isEmpty ? nil : product.options.map { .init(name: $0.name, values: $0.values) },
            variants: product.variants.isEmpty
                ? nil
                : product.variants.map {
                    .init(sku: $0.sku.rawValue, options: $0.values, title: $0.title, price: money($0.price), stock: $0.stock, grams: $0.grams)
                },
            subscriptionWeeks: product.subscriptionWeeks.isEmpty ? nil : product.subscriptionWeeks
        )
    }

    static func variant(_ line: CartLine) -> Components.Schemas.LineVariant? {
        line.variant.map { .init(sku: $0.sku.rawValue, title: $0.title) }
    }

    static func cart(_ lines: [CartLine], currency: Currency) -> Components.Schemas.Cart {
        let cart = Cart(currency: currency, lines: lines)
        return .init(
            lines: lines.map {
                .init(
                    productId: $0.productID.rawValue, name: $0.name, variant: variant($0), quantity: $0.quantity, unitPrice: money($0.unitPrice),
                    lineTotal: money($0.total)
                )
            },
            itemCount: cart.itemCount, subtotal: money(cart.subtotal)
        )
    }
}

extension APIModels {
    static func order(_ order: Order, events: [OrderEvent]?) -> Components.Schemas.Order {
        let parcel = events.flatMap { (try? OrderLifecycle.rebuilt(from: $0))?.shipment }
        return .init(
            number: order.number, status: .init(rawValue: order.status.rawValue) ?? .unknown, placedAt: order.placedAt,
            lines: lines(order.lines, discount: order.discount), subtotal: money(order.totals.subtotal), shipping: money(order.totals.shipping),
            discount: order.discount.map(discount), tax: money(order.totals.tax), taxDetails: taxDetails(order.taxCharged),
            total: money(order.totals.total),
            payment: order.paymentDescription, shippingMethod: order.shippingMethodLabel, shipTo: order.shipTo, customer: order.customerID,
            tracking: parcel.map { .init(carrier: $0.carrier, trackingNumber: $0.trackingNumber, trackingUrl: $0.trackingURL) },
            events: events?.map { event in
                .init(
                    at: event.at, actor: event.actor.recordText, _type: .init(rawValue: OrderEventRecord(event).kind) ?? .placed,
                    summary: event.change.shopperSummary)
            }
        )
    }

    /// An order's lines, each with its variant and its share of `discount`: an order's, and a preview's.
    static func lines(_ lines: [CartLine], discount: AppliedDiscount?) -> [Components.Schemas.OrderLine] {
        lines.map { line in
            .init(
                productId: line.productID.rawValue, name: line.name, variant: variant(line), quantity: line.quantity,
                unitPrice: money(line.unitPrice), lineTotal: money(line.total), discount: discount.map { money($0.share(of: line.stockKey)) })
        }
    }

    static func discount(_ discount: AppliedDiscount) -> Components.Schemas.OrderDiscount {
        .init(code: discount.code, goods: money(discount.goods), shipping: money(discount.shipping), total: money(discount.total))
    }

    static func taxDetails(_ tax: TaxPolicy) -> Components.Schemas.TaxDetails {
        .init(rule: .init(rawValue: tax.rule.rawValue) ?? .added, label: tax.label, basisPoints: tax.basisPoints, jurisdiction: tax.jurisdiction)
    }

    static func address(_ contact: Contact, isDefault: Bool) -> Components.Schemas.Address {
        .init(
            id: contact.id, name: contact.name, email: contact.email, phone: contact.phone, street: contact.address.street,
            street2: contact.address.street2, city: contact.address.city, region: contact.address.region, postalCode: contact.address.postalCode,
            countryCode: contact.address.countryCode, isDefault: isDefault
        )
    }

    static func addresses(_ wallet: WalletContents) -> [Components.Schemas.Address] {
        let all = wallet.addresses.map { address($0, isDefault: $0.id == wallet.defaultAddressID) }
        return all.filter(\.isDefault) + all.filter { !$0.isDefault }
    }

    static func card(_ card: PaymentMethod, isDefault: Bool) -> Components.Schemas.Card {
        .init(
            id: card.id, network: card.network.rawValue, lastFour: card.lastFour, expiryMonth: card.expiry.month, expiryYear: card.expiry.year,
            label: card.displayName, isDefault: isDefault)
    }

    static func cards(_ wallet: WalletContents, canCharge: (PaymentMethod) -> Bool) -> [Components.Schemas.Card] {
        let all = wallet.cards.filter(canCharge).map { card($0, isDefault: $0.id == wallet.defaultCardID) }
        return all.filter(\.isDefault) + all.filter { !$0.isDefault }
    }
}
