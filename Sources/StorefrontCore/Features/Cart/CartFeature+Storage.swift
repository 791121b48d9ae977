import ShopLanguages
import ShopModels
import ShopPorts

/// The cart and the database: its writes after each step, the saved cart read for a customer, and the hand-over
/// when the shopper becomes another customer.
extension CartFeature {
    /// At the end of every step: reads the fresh stock of what was added, then writes a changed cart,
    /// each as an effect after the frame that shows the change. A write waits for the stock check (so
    /// an add taken back is never written), for the write in flight, while the database is out of reach
    /// (the outage's retry brings it back) and after a failure of these very lines.
    static func followUp(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        if !state.stockChecksDue.isEmpty, !state.isStockCheckInFlight {
            // Each check's stock key with its product (a variant's SKU is read through its product).
            let lines = state.cart.lines
            let due = state.stockChecksDue.sorted { $0.key.rawValue < $1.key.rawValue }.map { key, before in
                (key: key, before: before, product: lines.first { $0.stockKey == key }?.productID ?? key)
            }
            // Emptied keeping its storage: the next add records its check without allocating a dictionary.
            state.stockChecksDue.removeAll(keepingCapacity: true)
            state.isStockCheckInFlight = true
            let catalog = env.dependencies.catalog
            return .run(id: .stockCheck) { send in
                var checks: [StockCheck] = []
                for check in due {
                    let stock = ((try? await catalog.product(id: check.product)) ?? nil)?.stock(of: check.key)
                    checks.append(StockCheck(productID: check.key, quantityBefore: check.before, stock: stock))
                }
                send(.cart(.stockChecked(checks)))
            }
        }
        // Every step ends here, every key among them: the flags are read first, and the lines compared only when a write may go.
        guard state.saveInFlight == nil, !state.isStockCheckInFlight, !state.shell.isWaitingForStorage, let saved = state.savedCart,
            let carts = env.dependencies.carts
        else { return .none }
        let lines = state.cart.lines
        guard saved != lines, state.saveFailed != lines else { return .none }
        state.saveInFlight = lines
        let customer = state.customerID
        // A write is never replaced halfway: the next one waits for its answer instead.
        return .run(id: .cartSave) { send in
            do {
                try await carts.save(lines, forCustomer: customer)
                send(.cart(.saved(customer: customer, lines: lines)))
            } catch {
                send(.cart(.saveFailed(customer: customer, lines: lines, StorageError(describing: error))))
            }
        }
    }

    /// The shop moves to another customer: the cart being left is written for `leaving` (emptied when its lines
    /// go into the next customer's cart on a sign-in, which `restore` merges them into), and the cart's pending
    /// work is dropped.
    static func handOver(_ state: inout State, leaving: String, mergingIntoNext: Bool, _ env: ShopEnvironment) -> Effect {
        var effect = Effect.none
        if let carts = env.dependencies.carts {
            if mergingIntoNext, !state.cart.isEmpty {
                effect += .run { _ in try? await carts.save([], forCustomer: leaving) }
            } else if let saved = state.savedCart, saved != state.cart.lines {
                // A change still waiting for its write belongs to the customer being left.
                let lines = state.cart.lines
                effect += .run { _ in try? await carts.save(lines, forCustomer: leaving) }
            }
        }
        state.stockChecksDue = [:]
        state.saveFailed = nil
        if !mergingIntoNext { state.cart = Cart(currency: env.shopProfile.currency) }
        return effect
    }

    /// Quitting: the last change is written by this step's follow-up at once, unchecked (checkout checks stock
    /// again); hosts wait for the write before they go.
    static func quit(_ state: inout State) -> Effect {
        guard state.isStockCheckInFlight || !state.stockChecksDue.isEmpty else { return .none }
        state.isStockCheckInFlight = false
        state.stockChecksDue = [:]
        return .cancel(.stockCheck)
    }

    /// Reads the current customer's saved cart; lines added before it answers are kept on top of it.
    static func restore(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let carts = env.dependencies.carts else { return .none }
        state.savedCart = nil
        let customer = state.customerID
        return .run(id: .cartRestore) { send in
            do {
                send(.cart(.restored(customer: customer, .success(try await carts.lines(forCustomer: customer)))))
            } catch {
                send(.cart(.restored(customer: customer, .failure(StorageError(describing: error)))))
            }
        }
    }

    /// The saved cart arrived: it becomes the cart, with whatever was added meanwhile merged in.
    static func restored(_ state: inout State, _ read: Result<[CartLine], StorageError>, _ env: ShopEnvironment) {
        let profile = env.shopProfile
        let addedMeanwhile = state.cart.lines
        switch read {
        case .success(let lines):
            // A cart saved in another market's currency is priced in this one (the catalog check confirms each price).
            let priced = env.market.flatMap { market in env.dependencies.markets.map { markets in lines.map { markets.line($0, in: market) } } }
            state.cart = Cart(currency: profile.currency, lines: (priced ?? lines).filter { $0.unitPrice.currency == profile.currency })
            if let left = leaveOutLinesOverMaximum(&state, from: "Your saved cart", env) { state.shell.notice = Notice(.error, .lookup(left)) }
            // The saved cart stays as it was until the shopper changes this one.
            state.savedCart = state.cart.lines
        case .failure(let error):
            state.cart = Cart(currency: profile.currency)
            state.savedCart = []
            state.shell.notice = Notice(.error, "Your saved cart could not be read: \(error)")
        }
        if !addedMeanwhile.isEmpty {
            state.cart.merge(addedMeanwhile)
            if let left = leaveOutLinesOverMaximum(&state, from: "Your cart with the lines just added", env) {
                state.shell.notice = Notice(.error, .lookup(left))
            }
        }
    }

    /// Keeps the cart within `Money.maximumMinorUnits`; says which lines were left out, or nil.
    static func leaveOutLinesOverMaximum(_ state: inout State, from source: String, _ env: ShopEnvironment) -> String? {
        let profile = env.shopProfile
        let ceiling = profile.ceiling
        let left = state.cart.removeLinesOverMaximum(shippingMethods: ceiling.methods, tax: ceiling.tax)
        guard !left.isEmpty else { return nil }
        let names = left.map(\.name).joined(separator: ", ")
        return "\(source) would cost over \(Money.maximum(profile.currency).formatted); left out: \(names)."
    }

    /// The database is back after an outage: lines whose write failed are asked for again.
    static func storageIsBack(_ state: inout State) {
        state.saveFailed = nil
    }

    /// A checkout that bought the cart was paid: the cart is emptied, and its follow-up writes that.
    static func empty(_ state: inout State) {
        state.cart.removeAll()
    }

    /// An earlier order that went unanswered turned out paid: what it bought leaves the cart, line by line, so lines
    /// added since stay.
    /// Each line of the cart that `priced` holds takes its price; the others are left as they are.
    static func reprice(_ priced: [CartLine], _ state: inout State) {
        for line in priced {
            guard let index = state.cart.lines.firstIndex(where: { $0.stockKey == line.stockKey }) else { continue }
            state.cart.setUnitPrice(at: index, to: line.unitPrice)
        }
    }

    static func removeBought(_ bought: [CartLine], _ state: inout State) {
        for line in bought {
            guard let index = state.cart.lines.firstIndex(where: { $0.stockKey == line.stockKey }) else { continue }
            let left = state.cart.lines[index].quantity - line.quantity
            if left > 0 { state.cart.setQuantity(at: index, to: left) } else { state.cart.removeLine(at: index) }
        }
    }
}
