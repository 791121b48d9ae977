import Foundation
import ShopLanguages
import ShopModels
import ShopPorts

/// The console's customers (`7`): `/` searches by email, name, order number or key; Enter opens the chosen one's page
/// (ways in, addresses, spend and refunds, orders, subscriptions, notes); on it `n` writes a note, and Enter opens the
/// chosen order. The same directory as `storefront customers`.
///
/// Order of calls for a search: `/` → the search form → `submitCustomerForm` (the words checked) → the directory's
/// search → `.customersFound` → the list. For a note: `n` → the note form → checked → `addNote` → the page read again.
public struct MerchantCustomersState: Equatable, Sendable {
    /// The most customers a search lists.
    public static let searchLimit = 200
    /// The latest orders a customer's page lists.
    public static let pageOrders = 50

    /// The words last searched for; empty before the first search.
    public var query = ""
    public var matches: [CustomerMatch] = []
    public var selectedIndex = 0
    public var isLoading = false
    /// The opened customer's page, and the order chosen on it.
    public var page: CustomerPage?
    public var orderIndex = 0

    public init() {}

    public var selected: CustomerMatch? { matches[safe: selectedIndex] }
}

/// Why the customers could not be read or a note written, in one line.
public struct CustomerDirectoryError: Error, Equatable, Sendable {
    public var line: String
    public init(_ line: String) { self.line = line }
}

extension MerchantFeature {
    static func showCustomers(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard env.dependencies.customers != nil else {
            state.shell.notice = Notice(.error, "This console keeps no customers.")
            return .none
        }
        state.shell.route = [.merchantQueue, .merchantCustomers]
        state.console.customers.page = nil
        // The first visit asks what to look for at once; later ones show the last search's list.
        if state.console.customers.query.isEmpty { presentCustomerSearch(&state) }
        return .none
    }

    static func presentCustomerSearch(_ state: inout State) {
        var form = FormState(
            purpose: .customerSearch, title: "Find a customer", message: "An email, a name, an order number or an SSH key's fingerprint.",
            fields: [.init(id: "query", label: "Search", hint: "max@example.de, Müller, SF-000042, SHA256:…")], submitLabel: "Search")
        form.fields[0].value = state.console.customers.query
        state.shell.presentForm(form)
    }

    static func reduceCustomers(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        let screen = state.console.customers
        switch action {
        case .move(let move):
            state.console.customers.selectedIndex = ListSelection.moved(
                screen.selectedIndex, by: move, count: screen.matches.count, page: state.rowCapacity)
        case .search:
            presentCustomerSearch(&state)
        case .confirm:
            guard let chosen = screen.selected else { return .none }
            state.console.customers.orderIndex = 0
            state.shell.push(.merchantCustomer)
            return readCustomerPage(chosen.customerID, env)
        case .back:
            return showQueue(&state, env)
        case .show, .newNote, .newProduct, .togglePublished, .archive, .newDiscount, .toggleDiscountPaused, .deleteDiscount, .nextFilter,
            .previousFilter, .ship, .markDelivered, .cancelOrder, .refund, .increase, .decrease, .toggleRestock, .toggleLowStock:
            break
        }
        return .none
    }

    static func reduceCustomerPage(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        let orders = state.console.customers.page?.orders ?? []
        switch action {
        case .move(let move):
            state.console.customers.orderIndex = ListSelection.moved(
                state.console.customers.orderIndex, by: move, count: orders.count, page: state.rowCapacity)
        case .newNote:
            guard let page = state.console.customers.page else { return .none }
            state.shell.presentForm(
                FormState(
                    purpose: .customerNote, title: "A note on \(page.name ?? page.customerID)",
                    message: "Only merchants see it, here and in `storefront customers show`.",
                    fields: [.init(id: "note", label: "Note", hint: "Prefers deliveries after 5 pm")], submitLabel: "Save"))
        case .search:
            state.shell.popScreen()
            presentCustomerSearch(&state)
        case .confirm:
            guard let order = orders[safe: state.console.customers.orderIndex] else { return .none }
            state.shell.push(.merchantOrder)
            return readDossier(order.number, env)
        case .back:
            state.shell.popScreen()
            state.console.customers.page = nil
        case .show, .newProduct, .togglePublished, .archive, .newDiscount, .toggleDiscountPaused, .deleteDiscount, .nextFilter, .previousFilter,
            .ship, .markDelivered, .cancelOrder, .refund, .increase, .decrease, .toggleRestock, .toggleLowStock:
            break
        }
        return .none
    }

    /// The search or note form submitted: checked as the command line checks it, then read or written.
    static func submitCustomerForm(_ state: inout State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        guard let directory = env.dependencies.customers else { return .none }
        if form.purpose == .customerNote {
            guard let customer = state.console.customers.page?.customerID else { return .none }
            switch CustomerNote.checked(form.value("note")) {
            case .failure(let problem):
                state.shell.form?.showFieldErrors(["note": .lookup(problem.message)])
                return .none
            case .success(let text):
                state.shell.dismissForm()
                let note = CustomerNote(author: "merchant:\(state.console.merchantName)", at: env.dependencies.accounts.dates.now(), text: text)
                return .run(id: .merchantChange) { send in
                    do {
                        try await directory.addNote(note, customer: customer)
                        send(.merchant(.customerPage(.success(try await directory.page(customer, orders: MerchantCustomersState.pageOrders)))))
                    } catch {
                        send(.merchant(.customerPage(.failure(CustomerDirectoryError("Could not save the note: \(error)")))))
                    }
                }
            }
        }
        switch CustomerQuery.checked(form.value("query")) {
        case .failure(let problem):
            state.shell.form?.showFieldErrors(["query": .lookup(problem.message)])
            return .none
        case .success(let query):
            state.shell.dismissForm()
            state.console.customers.query = query
            state.console.customers.isLoading = true
            return .run(id: .merchantCustomers) { send in
                do {
                    send(.merchant(.customersFound(.success(try await directory.search(query, limit: MerchantCustomersState.searchLimit)))))
                } catch {
                    send(.merchant(.customersFound(.failure(CustomerDirectoryError("Could not search the customers: \(error)")))))
                }
            }
        }
    }

    static func readCustomerPage(_ customer: String, _ env: ShopEnvironment) -> Effect {
        guard let directory = env.dependencies.customers else { return .none }
        return .run(id: .merchantCustomers) { send in
            do {
                send(.merchant(.customerPage(.success(try await directory.page(customer, orders: MerchantCustomersState.pageOrders)))))
            } catch {
                send(.merchant(.customerPage(.failure(CustomerDirectoryError("Could not read the customer: \(error)")))))
            }
        }
    }

    static func customersFound(_ state: inout State, _ found: Result<[CustomerMatch], CustomerDirectoryError>) {
        state.console.customers.isLoading = false
        switch found {
        case .success(let matches):
            state.console.customers.matches = matches
            state.console.customers.selectedIndex = 0
        case .failure(let error):
            state.shell.notice = Notice(.error, .lookup(error.line))
        }
    }

    static func customerPageRead(_ state: inout State, _ read: Result<CustomerPage?, CustomerDirectoryError>) {
        switch read {
        case .success(let page?):
            state.console.customers.page = page
            state.console.customers.orderIndex = ListSelection.clamped(state.console.customers.orderIndex, count: page.orders.count)
        case .success(nil):
            state.shell.notice = Notice(.error, "That customer is gone.")
        case .failure(let error):
            state.shell.notice = Notice(.error, .lookup(error.line))
        }
    }
}
