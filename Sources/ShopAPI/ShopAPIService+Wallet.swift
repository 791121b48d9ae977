import AddressFormats
import Foundation
import ShopModels
import ShopPorts

/// The shopper's saved addresses and cards, through the API.
extension ShopAPIService {
    func listAddresses(_ input: Operations.ListAddresses.Input) async throws -> Operations.ListAddresses.Output {
        let caller = try APICaller.required(.shop)
        let wallet = try await commerce.wallets.wallet(forCustomer: caller.token.owner)
        return .ok(.init(body: .json(.init(data: APIModels.addresses(wallet)))))
    }

    func addAddress(_ input: Operations.AddAddress.Input) async throws -> Operations.AddAddress.Output {
        let caller = try APICaller.required(.shop)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        let entry = AddressEntry(
            name: body.name, street: body.street, street2: body.street2 ?? "", city: body.city, region: body.region ?? "",
            postalCode: body.postalCode, country: body.countryCode, email: body.email, phone: body.phone ?? ""
        )
        var problems = entry.problems().map { APIProblem.FieldError(field: Self.fieldName($0.key), message: $0.value.description) }.sorted {
            $0.field < $1.field
        }
        // The form takes a country's name as people type it; the API's field is the code its schema names, so a program
        // never stores a country through a name that a later table might read otherwise.
        let code = body.countryCode.trimmingCharacters(in: .whitespaces)
        if code.count != 2 || !code.allSatisfy({ $0.isASCII && $0.isLetter }) || AddressFormats.format(for: code) == nil {
            problems.removeAll { $0.field == "countryCode" }
            problems.append(.init(field: "countryCode", message: "Enter the country's two-letter code (ISO 3166-1), such as US or DE."))
            problems.sort { $0.field < $1.field }
        }
        // Named as the shop's address form names one.
        let id = "addr_" + commerce.ids.next()
        if !problems.contains(where: { ["countryCode", "region"].contains($0.field) }),
            let refusal = shop.catalog.shop.shippingRefusal(address: entry.destination)
        {
            problems.append(.init(field: "countryCode", message: refusal.description))
        }
        guard problems.isEmpty, let contact = entry.contact(id: id) else {
            throw APIProblem(.validation, problems.map { "\($0.field): \($0.message)" }.joined(separator: " "), errors: problems)
        }
        try await commerce.wallets.addAddress(contact, forCustomer: caller.token.owner, makeDefault: body.makeDefault ?? false)
        let wallet = try await commerce.wallets.wallet(forCustomer: caller.token.owner)
        return .created(.init(body: .json(APIModels.address(contact, isDefault: wallet.defaultAddressID == contact.id))))
    }

    func removeAddress(_ input: Operations.RemoveAddress.Input) async throws -> Operations.RemoveAddress.Output {
        try await removeSaved("address", id: input.path.addressId, held: { $0.addresses.map(\.id) }) {
            try await $0.removeAddress(id: $1, forCustomer: $2)
        }
        return .noContent(.init())
    }

    func listCards(_ input: Operations.ListCards.Input) async throws -> Operations.ListCards.Output {
        let caller = try APICaller.required(.shop)
        let wallet = try await commerce.wallets.wallet(forCustomer: caller.token.owner)
        return .ok(.init(body: .json(.init(data: APIModels.cards(wallet, canCharge: commerce.provider.canCharge)))))
    }

    func addCard(_ input: Operations.AddCard.Input) async throws -> Operations.AddCard.Output {
        let caller = try APICaller.required(.shop)
        guard case .json(let body) = input.body else { throw APIProblem(.invalidRequest, "The body must be JSON.") }
        guard commerce.provider.mode == .sandbox else {
            throw APIProblem(
                .validation, "This shop takes real cards only on its payment provider's page: add one in the SSH shop.",
                errors: [.init(field: "testCard", message: "test cards are for sandbox payments")])
        }
        guard let card = commerce.testCards.first(where: { $0.id == body.testCard.rawValue }) else {
            let known = commerce.testCards.map(\.id).joined(separator: ", ")
            throw APIProblem(
                .validation, "testCard must be one of the sandbox's test cards: \(known).",
                errors: [.init(field: "testCard", message: "not a test card")])
        }
        try await commerce.wallets.addCard(card, forCustomer: caller.token.owner, makeDefault: body.makeDefault ?? false)
        let wallet = try await commerce.wallets.wallet(forCustomer: caller.token.owner)
        return .created(.init(body: .json(APIModels.card(card, isDefault: wallet.defaultCardID == card.id))))
    }

    func removeCard(_ input: Operations.RemoveCard.Input) async throws -> Operations.RemoveCard.Output {
        try await removeSaved("card", id: input.path.cardId, held: { $0.cards.map(\.id) }) { try await $0.removeCard(id: $1, forCustomer: $2) }
        return .noContent(.init())
    }

    /// Removes the caller's saved `kind` `id`: a 404 when their wallet holds none by that id (another's is as unknown).
    private func removeSaved(
        _ kind: String, id: String, held: (WalletContents) -> [String], _ remove: (any WalletRepository, String, String) async throws -> Void
    ) async throws {
        let caller = try APICaller.required(.shop)
        let wallet = try await commerce.wallets.wallet(forCustomer: caller.token.owner)
        guard held(wallet).contains(id) else { throw APIProblem(.notFound, "You have no saved \(kind) \(id.prefix(100)).") }
        try await remove(commerce.wallets, id, caller.token.owner)
    }

    /// The API's name for an address form field.
    private static func fieldName(_ field: AddressField) -> String {
        switch field {
        case .country: "countryCode"
        default: field.rawValue
        }
    }
}
