import Foundation
import ShopModels
import ShopPorts

/// The console's product form: its fields read from a product's document, and the document its fields make. Fields the
/// form does not show (art, each variant's own price, weight and SKU) are kept from the document it edits.
enum ProductDocumentForm {
    static let fieldIDs = ["id", "name", "summary", "description", "price", "tags", "options", "picture"]

    /// The form for `product` (nil: a new product, with its id to type).
    static func make(_ product: EditableProduct?, currency: Currency) -> FormState {
        let fields = product.flatMap { try? JSONParser.parse(Array($0.document.utf8)).objectValue } ?? [:]
        func text(_ key: String) -> String { fields[key]?.stringValue ?? "" }
        let price = fields["price"]?.integerValue.map { Money(minorUnits: $0, currency: currency).plainAmount } ?? ""
        let tags = fields["tags"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""
        let picture = fields["pictures"]?.arrayValue?.first.flatMap { $0.stringValue ?? $0.objectValue?["file"]?.stringValue }
        let options =
            fields["options"]?.arrayValue?.compactMap { option -> String? in
                guard let name = option.objectValue?["name"]?.stringValue else { return nil }
                let values = option.objectValue?["values"]?.arrayValue?.compactMap(\.stringValue) ?? []
                return "\(name): \(values.joined(separator: ", "))"
            }.joined(separator: "; ") ?? ""
        return FormState(
            purpose: .productDetails,
            title: product.map { "Edit \($0.name) \u{00B7} \($0.id) (version \($0.version))" } ?? "New product",
            message: product == nil
                ? "It goes on sale when saved, last in the shop. Options make a variant of each combination."
                : "Saved over version \(product?.version ?? 0); if someone saves first, you are told and nothing is lost.",
            // An existing product's id is its key: it is shown in the title, not offered for editing.
            fields: (product == nil ? [.init(id: "id", label: "Id", hint: "letters, digits and -")] : []) + [
                .init(id: "name", label: "Name", value: text("name")),
                .init(id: "summary", label: "Summary", value: text("summary"), hint: "one line for the list"),
                .init(id: "description", label: "Description", value: text("description")),
                .init(id: "price", label: "Price", value: price, hint: "e.g. 24.00"),
                .init(id: "tags", label: "Tags", value: tags, hint: "comma-separated"),
                .init(id: "options", label: "Options", value: options, hint: "Size: S, M, L; Colour: Black, White"),
                // A file on the machine the console runs on; the pictures the product has stay unless one is named.
                .init(
                    id: "picture", label: "Picture",
                    hint: picture.map { "now \($0); a PNG or JPEG file here to put first" } ?? "a PNG or JPEG file here, or none"),
            ],
            submitLabel: product == nil ? "Create" : "Save"
        )
    }

    /// What the form's fields make: a document, or each field's problem by its id.
    enum Made: Equatable {
        case document(String)
        case problems([String: String])
    }

    /// A problem with the options' text, in words for the form.
    struct OptionsProblem: Error, Equatable {
        let message: String
    }

    /// The document `form` makes from `base` (the document edited; nil for a new product), or each field's problem.
    static func document(_ form: FormState, base: String?, currency: Currency) -> Made {
        var document = base.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? [:]
        var errors: [String: String] = [:]
        let id = form.value("id").trimmingCharacters(in: .whitespaces)
        if base == nil {
            if id.isEmpty || id.count > 80 || !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                errors["id"] = "Enter 1 to 80 letters, digits, - or _."
            }
            document["id"] = id
        }
        for key in ["name", "summary", "description"] {
            document[key] = form.value(key).trimmingCharacters(in: .whitespaces)
        }
        if let price = Money(typed: form.value("price"), currency: currency) {
            document["price"] = price.minorUnits
        } else {
            errors["price"] = "Enter a price such as \(Money(minorUnits: 2_400, currency: currency).plainAmount)."
        }
        document["tags"] = form.value("tags").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        switch options(form.value("options")) {
        case .success(let options):
            let productID = (document["id"] as? String) ?? id
            let variants = variants(for: options, productID: productID, kept: document["variants"] as? [[String: Any]] ?? [])
            document["options"] = options.isEmpty ? nil : options.map { ["name": $0.name, "values": $0.values] }
            document["variants"] = options.isEmpty ? nil : variants
        case .failure(let problem):
            errors["options"] = problem.message
        }
        guard errors.isEmpty else { return .problems(errors) }
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return .document(String(decoding: data, as: UTF8.self))
    }

    /// `document` with `picture` first among its pictures (at most the catalog's eight; the same picture named once).
    static func naming(_ picture: PictureReference, first document: String) -> String {
        var object = (try? JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any]) ?? [:]
        let others = (object["pictures"] as? [Any] ?? []).filter { ($0 as? [String: Any])?["sha256"] as? String != picture.digest }
        object["pictures"] = Array(([CatalogWriter.pictureField(picture)] + others).prefix(CatalogLoader.maximumPictures))
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// "Size: S, M; Colour: Black" as options; an empty text is none.
    static func options(_ text: String) -> Result<[ProductOption], OptionsProblem> {
        let parts = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var options: [ProductOption] = []
        for part in parts {
            let halves = part.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard halves.count == 2, !halves[0].isEmpty else {
                return .failure(OptionsProblem(message: "Write each option as Name: value, value; such as Size: S, M, L."))
            }
            let values = halves[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !values.isEmpty else { return .failure(OptionsProblem(message: "The option \(halves[0]) has no values.")) }
            options.append(ProductOption(name: halves[0], values: values))
        }
        return .success(options)
    }

    /// A variant for every combination of the options' values: the one the document had for it where it had one (its
    /// SKU, price, weight), else a new SKU from the product's id and the values.
    static func variants(for options: [ProductOption], productID: String, kept: [[String: Any]]) -> [[String: Any]] {
        let combinations = options.reduce([[String]]([[]])) { partial, option in
            partial.flatMap { prefix in option.values.map { prefix + [$0] } }
        }
        return combinations.map { values in
            if let same = kept.first(where: { ($0["options"] as? [String]) == values }) { return same }
            let slug = ([productID] + values).joined(separator: "-").lowercased().map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" }
            return ["sku": String(slug), "options": values]
        }
    }
}
