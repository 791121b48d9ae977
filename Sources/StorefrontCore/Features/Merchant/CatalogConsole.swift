import ShopLanguages
import ShopModels
import ShopPorts

/// The console's catalog (`4`): every product with its status and version, and the latest changes. Enter edits the
/// product chosen, `n` makes one, `p` publishes or unpublishes it, `x` archives it. Each change names the version it was
/// made against; one made meanwhile elsewhere is told, and nothing is overwritten.
///
/// Order of calls for an edit: Enter or `n` → the product form (`ProductDocumentForm`) → its document → the editor
/// → `edited` (the list read again, the shop's catalog rebuilt by then).
extension MerchantFeature {
    static func showCatalog(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        state.shell.route = [.merchantQueue, .merchantCatalog]
        return reloadCatalog(&state, env)
    }

    static func reloadCatalog(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let desk = env.dependencies.catalogDesk else {
            state.shell.notice = Notice(.error, "This console cannot edit the catalog.")
            return .none
        }
        state.console.catalog.isLoading = true
        return .run(id: .merchantCatalog) { send in
            do {
                let listing = CatalogListing(products: try await desk.editor.products(), history: try await desk.editor.history(of: nil, limit: 8))
                send(.merchant(.catalog(.success(listing))))
            } catch {
                send(.merchant(.catalog(.failure(.storage("\(error)")))))
            }
        }
    }

    static func reduceCatalog(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        let catalog = state.console.catalog
        switch action {
        case .move(let move):
            state.console.catalog.selectedIndex = ListSelection.moved(
                catalog.selectedIndex, by: move, count: catalog.products.count, page: state.rowCapacity)
        case .confirm:
            guard let product = catalog.selected else { return .none }
            state.console.catalog.editing = product
            state.shell.presentForm(ProductDocumentForm.make(product, currency: env.shopProfile.currency))
        case .newProduct:
            state.console.catalog.editing = nil
            state.shell.presentForm(ProductDocumentForm.make(nil, currency: env.shopProfile.currency))
        case .togglePublished:
            guard let product = catalog.selected else { return .none }
            return edit(&state, product.id, .setStatus(product.status == .published ? .unpublished : .published), version: product.version, env)
        case .archive:
            guard let product = catalog.selected, product.status != .archived else { return .none }
            return edit(&state, product.id, .setStatus(.archived), version: product.version, env)
        case .back:
            return showQueue(&state, env)
        case .show, .newDiscount, .toggleDiscountPaused,
            .deleteDiscount, .nextFilter,
            .previousFilter, .ship, .markDelivered, .cancelOrder, .refund,
            .increase, .decrease, .toggleRestock, .toggleLowStock, .search, .newNote:
            break
        }
        return .none
    }

    /// The product form submitted: its document, or each field's problem in place.
    static func submitProductForm(_ state: inout State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        let editing = state.console.catalog.editing
        switch ProductDocumentForm.document(form, base: editing?.document, currency: env.shopProfile.currency) {
        case .problems(let errors):
            state.shell.form?.showFieldErrors(errors.mapValues(Localized.lookup))
            return .none
        case .document(let document):
            state.shell.form?.isBusy = true
            state.shell.form?.status = "Saving…"
            state.shell.form?.isStatusError = false
            let id = editing?.id ?? ProductID(form.value("id").trimmingCharacters(in: .whitespaces))
            let picture = form.value("picture").trimmingCharacters(in: .whitespaces)
            return editDocument(&state, id, document, creating: editing == nil, version: editing?.version, picture: picture, env)
        }
    }

    private static func edit(
        _ state: inout State, _ id: ProductID, _ change: CatalogEdit.Change, version: Int?, _ env: ShopEnvironment
    ) -> Effect {
        guard let desk = env.dependencies.catalogDesk else { return .none }
        let edit = CatalogEdit(productID: id, change: change, expectedVersion: version, actor: state.console.merchantName)
        return .run(id: .merchantChange) { send in await apply(edit, desk, send) }
    }

    /// The form's document saved. Order of effects: the picture file named (if any) read, checked and kept → the
    /// document names it first → the editor applies the change. A refused picture is the picture field's problem, and
    /// nothing is saved.
    private static func editDocument(
        _ state: inout State, _ id: ProductID, _ document: String, creating: Bool, version: Int?, picture: String, _ env: ShopEnvironment
    ) -> Effect {
        guard let desk = env.dependencies.catalogDesk else { return .none }
        let actor = state.console.merchantName
        return .run(id: .merchantChange) { send in
            var document = document
            if !picture.isEmpty {
                guard let intake = desk.pictures else {
                    return send(.merchant(.catalogEdited(.failure(.invalid(["picture: this console keeps no pictures"])))))
                }
                do throws(PictureIntakeRefusal) {
                    document = ProductDocumentForm.naming(try await intake.take(file: picture).reference, first: document)
                } catch {
                    return send(.merchant(.catalogEdited(.failure(.invalid(["picture: \(error.message)"])))))
                }
            }
            let change: CatalogEdit.Change = creating ? .create(document: document) : .update(document: document)
            await apply(CatalogEdit(productID: id, change: change, expectedVersion: version, actor: actor), desk, send)
        }
    }

    private static func apply(_ edit: CatalogEdit, _ desk: CatalogDesk, _ send: Send) async {
        do throws(CatalogEditError) {
            send(.merchant(.catalogEdited(.success(try await desk.editor.apply(edit, at: desk.dates.now())))))
        } catch {
            send(.merchant(.catalogEdited(.failure(error))))
        }
    }

    /// The editor answered: saved, the form closes and the list is read again; refused, the form says why in place
    /// (a field's problem by the field) and keeps what was typed.
    static func edited(_ state: inout State, _ result: Result<EditableProduct, CatalogEditError>, _ env: ShopEnvironment) -> Effect {
        switch result {
        case .success(let product):
            if state.shell.form?.purpose == .productDetails { state.shell.dismissForm() }
            state.console.catalog.editing = nil
            let told: String =
                switch product.status {
                case .published where product.version == 1: "\(product.name) is on sale, last in the shop."
                case .published: "Saved \(product.name), version \(product.version): the shop shows it at its next screen."
                case .unpublished: "\(product.name) is out of the shop until you publish it again (p)."
                case .archived: "Archived \(product.name): out of the shop; its orders keep their lines. p publishes it again."
                }
            state.shell.notice = Notice(.info, .lookup(told))
            if let index = state.console.catalog.products.firstIndex(where: { $0.id == product.id }) {
                state.console.catalog.products[index] = product
            }
        case .failure(let error):
            guard state.shell.form?.purpose == .productDetails else {
                state.shell.notice = Notice(.error, .lookup(error.message))
                return reloadCatalog(&state, env)
            }
            state.shell.form?.isBusy = false
            if case .invalid(let problems) = error {
                // "price: must not be negative": by its field where the form has one.
                var errors: [String: String] = [:]
                for problem in problems {
                    let field = String(problem.prefix { $0 != ":" && $0 != "[" && $0 != "." })
                    let id =
                        ProductDocumentForm.fieldIDs.contains(field)
                        ? field : field == "variants" ? "options" : field == "pictures" ? "picture" : "name"
                    errors[id] = errors[id].map { $0 + " " + problem } ?? problem
                }
                state.shell.form?.showFieldErrors(errors.mapValues(Localized.lookup))
            } else {
                state.shell.form?.status = .lookup(error.message)
                state.shell.form?.isStatusError = true
            }
            return .none
        }
        return reloadCatalog(&state, env)
    }

    static func catalogRead(_ state: inout State, _ result: Result<CatalogListing, CatalogEditError>) {
        state.console.catalog.isLoading = false
        switch result {
        case .success(let listing):
            state.console.catalog.products = listing.products
            state.console.catalog.history = listing.history
            state.console.catalog.selectedIndex = ListSelection.clamped(state.console.catalog.selectedIndex, count: listing.products.count)
        case .failure(let error):
            state.shell.notice = Notice(.error, "Could not read the catalog: \(error.message)")
        }
    }
}
