import Foundation
import OpenAPIRuntime
import ShopModels
import ShopPorts

/// The merchant's catalog through the API: every product whatever its status, made, replaced and published or archived
/// against the version read, with the history of who changed what. The console's editor, so both check alike.
extension ShopAPIService {
    func listCatalogProducts(_ input: Operations.ListCatalogProducts.Input) async throws -> Operations.ListCatalogProducts.Output {
        let editor = try catalogEditor(APICaller.required(.merchant))
        return .ok(.init(body: .json(.init(data: try await editor.products().map(Self.catalogProduct)))))
    }

    func createCatalogProduct(_ input: Operations.CreateCatalogProduct.Input) async throws -> Operations.CreateCatalogProduct.Output {
        let caller = try APICaller.required(.merchant)
        let editor = try catalogEditor(caller)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let document = try Self.document(body.product.additionalProperties)
        guard let id = (try? JSONParser.parse(Array(document.utf8)))?.objectValue.flatMap({ CatalogLoader.productID($0["id"]) }), !id.isEmpty else {
            throw APIProblem(.validation, "product.id: the product needs its id.", errors: [.init(field: "product.id", message: "missing")])
        }
        let edit = CatalogEdit(productID: ProductID(id), change: .create(document: document), expectedVersion: nil, actor: caller.token.owner)
        return .created(.init(body: .json(Self.catalogProduct(try await Self.apply(edit, editor, at: commerce.now())))))
    }

    func updateCatalogProduct(_ input: Operations.UpdateCatalogProduct.Input) async throws -> Operations.UpdateCatalogProduct.Output {
        let caller = try APICaller.required(.merchant)
        let editor = try catalogEditor(caller)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let edit = CatalogEdit(
            productID: ProductID(input.path.productId), change: .update(document: try Self.document(body.product.additionalProperties)),
            expectedVersion: body.version, actor: caller.token.owner)
        return .ok(.init(body: .json(Self.catalogProduct(try await Self.apply(edit, editor, at: commerce.now())))))
    }

    func setCatalogProductStatus(_ input: Operations.SetCatalogProductStatus.Input) async throws -> Operations.SetCatalogProductStatus.Output {
        let caller = try APICaller.required(.merchant)
        let editor = try catalogEditor(caller)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        guard let status = ProductStatus(rawValue: body.status.rawValue) else { throw APIProblem(.invalidRequest, "Unknown status.") }
        let edit = CatalogEdit(
            productID: ProductID(input.path.productId), change: .setStatus(status), expectedVersion: body.version, actor: caller.token.owner)
        return .ok(.init(body: .json(Self.catalogProduct(try await Self.apply(edit, editor, at: commerce.now())))))
    }

    func getCatalogProductHistory(_ input: Operations.GetCatalogProductHistory.Input) async throws -> Operations.GetCatalogProductHistory.Output {
        let editor = try catalogEditor(APICaller.required(.merchant))
        let id = ProductID(input.path.productId)
        let entries = try await editor.history(of: id, limit: 200)
        if entries.isEmpty, try await !editor.products().contains(where: { $0.id == id }) {
            throw APIProblem(.notFound, "No product has the id \"\(id.rawValue.prefix(100))\".")
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        data: entries.map {
                            .init(version: $0.version, action: .init(rawValue: $0.action) ?? .update, actor: $0.actor, at: $0.at)
                        }))))
    }

    private func catalogEditor(_ caller: APICaller) throws -> any CatalogEditing {
        guard let editor = commerce.catalogEditor else { throw APIProblem(.unavailable, "This server does not edit the catalog.") }
        return editor
    }

    private static func apply(_ edit: CatalogEdit, _ editor: any CatalogEditing, at date: Date) async throws -> EditableProduct {
        do {
            return try await editor.apply(edit, at: date)
        } catch .changedMeanwhile(let id, let now, let by) {
            throw APIProblem(.conflict, CatalogEditError.changedMeanwhile(id, now: now, by: by).message)
        } catch .noSuchProduct(let id) {
            throw APIProblem(.notFound, "No product has the id \"\(id.rawValue.prefix(100))\".")
        } catch .alreadyExists(let id) {
            throw APIProblem(.conflict, "A product with the id \"\(id.rawValue.prefix(100))\" exists already.")
        } catch .invalid(let problems) {
            // "price: must not be negative" → field "product.price".
            let errors = problems.map { problem -> APIProblem.FieldError in
                let field = problem.prefix { $0 != ":" }
                return .init(field: "product." + field, message: String(problem.dropFirst(field.count + 1).drop { $0 == " " }))
            }
            throw APIProblem(.validation, problems.joined(separator: " "), errors: errors)
        } catch .storage(let message) {
            throw APIProblem(.unavailable, "The catalog could not be changed: \(message)", retryAfter: 5)
        }
    }

    /// The body's product as JSON text, for the editor to check as a catalog file's product.
    private static func document(_ product: OpenAPIObjectContainer) throws -> String {
        guard let data = try? JSONEncoder().encode(product) else { throw APIProblem(.invalidRequest, "The product could not be read.") }
        return String(decoding: data, as: UTF8.self)
    }

    static func catalogProduct(_ product: EditableProduct) -> Components.Schemas.CatalogProduct {
        let object = (try? JSONDecoder().decode(OpenAPIObjectContainer.self, from: Data(product.document.utf8))) ?? OpenAPIObjectContainer()
        return .init(
            id: product.id.rawValue, name: product.name, status: .init(rawValue: product.status.rawValue) ?? .unpublished, version: product.version,
            updatedAt: product.updatedAt, updatedBy: product.updatedBy, product: .init(additionalProperties: object))
    }
}
