import AddressFormats
import ShopLanguages
import ShopModels
import ShopPorts

/// The address form: checked in place, including where the shop ships, then saved to the wallet.
@MainActor
enum AddressForm {
    static func make(profile: AccountProfile?, _ env: ShopEnvironment) -> FormState {
        let shop = env.shopProfile
        // The country comes first, so the fields after it are asked for in its order and named in its words; it is
        // filled in with the shop's, so typing starts at the name.
        var form = FormState(
            purpose: .addAddress, title: "Add an address",
            message: "\(shop.name) ships to \(ShopProfile.listed(shop.regions.map(\.name))). The email gets the receipt.",
            fields: [
                FormState.Field(id: AddressField.country.rawValue, label: "Country", value: shop.countryCode, hint: Self.countryHint),
                FormState.Field(id: AddressField.name.rawValue, label: "Name", value: profile?.name ?? ""),
            ] + addressFields(for: shop.countryCode) + [
                FormState.Field(id: AddressField.email.rawValue, label: "Email", value: profile?.email ?? ""),
                FormState.Field(id: AddressField.phone.rawValue, label: "Phone", hint: phoneHint(country: shop.countryCode)),
            ],
            submitLabel: "Save address"
        )
        form.focusedIndex = 1
        return form
    }

    /// The phone field's hint: optional, and an example in the country's own form.
    static func phoneHint(country: String) -> Localized { Localized("optional, \(Contact.phoneExample(country: country))") }

    /// The country field's hint before anything is typed into it.
    static let countryHint = Localized("its name or code")

    /// The text of field `index` changed: typed into the country field, the field names the country it found, offers
    /// those whose names start with what was typed, or says at once that none does; the address fields follow it.
    static func edited(_ form: inout FormState, field index: Int) {
        guard form.fields[index].id == AddressField.country.rawValue else { return }
        let typed = form.fields[index].value.trimmingCharacters(in: .whitespaces)
        form.fields[index].error = nil
        if let country = AddressFormats.country(named: typed) {
            form.fields[index].hint = .verbatim(country.name)
        } else if typed.isEmpty {
            form.fields[index].hint = countryHint
        } else {
            let starting = AddressFormats.countries(startingWith: typed).map(\.name)
            if starting.isEmpty { form.fields[index].error = AddressEntry.countryProblem(typed) }
            form.fields[index].hint = .verbatim(starting.prefix(3).joined(separator: ", ") + (starting.count > 3 ? "…" : ""))
        }
        follow(country: form.fields[index].value, in: &form)
    }

    /// The fields that follow the country: the street lines, the city, the region and the postal code.
    static let followingIDs: Set<String> = Set(
        [AddressField.street, .street2, .city, .region, .postalCode].map(\.rawValue))

    /// Puts the address fields in the order and words of the country the form now names, keeping what was typed in
    /// them; nothing changes while the country field names no country.
    static func follow(country: String, in form: inout FormState) {
        guard let code = AddressFormats.country(named: country)?.code else { return }
        guard let first = form.fields.firstIndex(where: { followingIDs.contains($0.id) }) else { return }
        let typed = Dictionary(uniqueKeysWithValues: form.fields.filter { followingIDs.contains($0.id) }.map { ($0.id, $0) })
        let focusedID = form.fields[form.focusedIndex].id
        let followed = addressFields(for: code).map { field in
            var field = field
            field.value = typed[field.id]?.value ?? ""
            field.error = typed[field.id]?.error
            return field
        }
        form.fields.removeAll { followingIDs.contains($0.id) }
        form.fields.insert(contentsOf: followed, at: first)
        // The phone's example is the country's own: a buyer in Berlin is shown +49, not +1.
        if let phone = form.fields.firstIndex(where: { $0.id == AddressField.phone.rawValue }) {
            form.fields[phone].hint = phoneHint(country: code)
        }
        form.focusedIndex = form.fields.firstIndex { $0.id == focusedID } ?? form.focusedIndex
    }

    /// The address fields in the order the country writes them, named as it names them ("ZIP code", "Post town",
    /// "Province"), with the second street line after the first; the region only where the country has one.
    static func addressFields(for country: String) -> [FormState.Field] {
        let street2 = FormState.Field(id: AddressField.street2.rawValue, label: "Apt, suite", hint: "optional")
        guard let format = AddressFormats.format(for: country) else {
            return [
                FormState.Field(id: AddressField.street.rawValue, label: "Street"), street2,
                FormState.Field(id: AddressField.city.rawValue, label: "City"),
                FormState.Field(id: AddressField.region.rawValue, label: "Region", hint: "optional"),
                FormState.Field(id: AddressField.postalCode.rawValue, label: "Postal code"),
            ]
        }
        // Every country's address has a street and a city line here, even where its format folds the city into them.
        let order = format.fields + ([.street, .city, .postal] as [AddressFormat.Field]).filter { !format.fields.contains($0) }
        return order.flatMap { field -> [FormState.Field] in
            switch field {
            case .street: [FormState.Field(id: AddressField.street.rawValue, label: format.labelWords(of: .street)), street2]
            case .city: [FormState.Field(id: AddressField.city.rawValue, label: format.labelWords(of: .city))]
            case .region:
                [
                    FormState.Field(
                        id: AddressField.region.rawValue, label: format.labelWords(of: .region),
                        hint: format.regions.first.map { Localized("e.g. \($0.key)") }
                            ?? (format.required.contains(.region) ? "" : Localized("optional")))
                ]
            case .postal:
                [
                    FormState.Field(
                        id: AddressField.postalCode.rawValue, label: format.labelWords(of: .postal),
                        hint: format.postalExamples.first.map { Localized("e.g. \($0)") }
                            ?? (format.required.contains(.postal) ? "" : Localized("optional")))
                ]
            }
        }
    }

    static func submit(_ state: inout FormFeature.State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        let entry = AddressEntry(
            name: form.value(AddressField.name.rawValue), street: form.value(AddressField.street.rawValue),
            street2: form.value(AddressField.street2.rawValue), city: form.value(AddressField.city.rawValue),
            region: form.value(AddressField.region.rawValue), postalCode: form.value(AddressField.postalCode.rawValue),
            country: form.value(AddressField.country.rawValue), email: form.value(AddressField.email.rawValue),
            phone: form.value(AddressField.phone.rawValue)
        )
        var problems = Dictionary(uniqueKeysWithValues: entry.problems().map { ($0.key.rawValue, $0.value) })
        if problems[AddressField.country.rawValue] == nil, problems[AddressField.region.rawValue] == nil,
            let elsewhere = env.shopProfile.shippingRefusal(address: entry.destination)
        {
            problems[AddressField.country.rawValue] = elsewhere
        }
        guard problems.isEmpty, let contact = entry.contact(id: "addr_" + env.dependencies.ids.next()) else {
            state.shell.form?.showFieldErrors(problems)
            return .none
        }
        state.shell.form?.showFieldErrors([:])
        state.shell.form?.isBusy = true
        state.shell.form?.status = "Saving the address…"
        state.shell.form?.isStatusError = false
        let wallets = env.dependencies.accounts.wallets
        let (customer, makeDefault) = (state.customerID, state.wallet.addresses.isEmpty)
        return .run { send in
            do {
                try await wallets.addAddress(contact, forCustomer: customer, makeDefault: makeDefault)
                send(.form(.addressSaved(contact)))
            } catch {
                send(.form(.failed(message: "The address could not be saved: \(error)", field: nil)))
            }
        }
    }

    /// The address is saved: the wallet is read again, and a sheet that asked for it chooses it.
    static func saved(_ state: inout FormFeature.State, _ contact: Contact, _ env: ShopEnvironment) -> Effect {
        state.shell.dismissForm()
        state.shell.notice = Notice(.info, "Saved the address for \(contact.name).")
        return .send(.form(.delegate(.addedToWallet(.address(contact)))))
    }
}
