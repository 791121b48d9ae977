import Clocks
import Foundation
import ShopModels
import ShopPorts
import ShopSandbox
import ShopStripe
import Testing

/// One provider port, two implementations: the sandbox and the Stripe adapter (against localstripe)
/// vault, tokenize, charge once per key and honour a void alike.
@Suite("Payment provider contract", .ownThreads)
struct PaymentProviderContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sandbox, stripe
        var testDescription: String { rawValue }
    }

    /// A provider and its processor, with what the test needs to ask of each.
    struct Harness {
        var provider: any PaymentProvider
        var processor: any ChargeProcessor
        /// A card that vaults but declines when charged.
        var declinesWhenCharged: String
        /// How many charges under `key` moved money, by the provider's own records.
        var succeededCharges: (_ key: String) async throws -> Int
        var close: () async -> Void
        /// Kept alive for the test's length.
        var server: LocalStripe?

        /// Runs `body` with a fresh harness, closing it however the body ends (a client left open traps).
        static func with(_ kind: Kind, _ body: (Harness) async throws -> Void) async throws {
            let harness = try make(kind)
            do { try await body(harness) } catch {
                await harness.close()
                throw error
            }
            await harness.close()
        }

        static func make(_ kind: Kind) throws -> Harness {
            switch kind {
            case .sandbox:
                let processor = SandboxProcessor(ids: IDGenerator { UUID().uuidString })
                return Harness(
                    provider: SandboxPaymentProvider(processor: processor), processor: processor, declinesWhenCharged: "4000000000000002",
                    succeededCharges: { key in await processor.successfulCharges.filter { $0.key == key }.count }, close: {}
                )
            case .stripe:
                let server = try LocalStripe()
                let key = try StripeSecretKey(LocalStripe.secretKey)
                let client = StripeClient(key: key, base: try #require(URL(string: server.base)), clock: ImmediateClock())
                let references = InMemoryProviderReferences()
                return Harness(
                    provider: StripePaymentProvider(client: client, key: key, references: references, cardPage: nil),
                    processor: StripeChargeProcessor(client: client, key: key, references: references),
                    declinesWhenCharged: "4000000000000341",
                    succeededCharges: { key in
                        try server.paymentIntents().filter {
                            ($0["metadata"] as? [String: String])?["idempotency_key"] == key && $0["status"] as? String == "succeeded"
                        }.count
                    },
                    close: { try? await client.shutdown() }, server: server
                )
            }
        }
    }

    static func card(_ number: String) throws -> CardDetails {
        try CardEntry(number: number, expiry: "12/34", securityCode: "123", name: "Jane Appleseed", postalCode: "95014")
            .validated(today: CardExpiry(month: 11, year: 2026)).get()
    }

    static func payment(with method: PaymentMethod) -> Payment {
        Payment(
            method: method, methodData: "sandbox:\(method.id)", shippingContact: SandboxWallet.sampleContacts[0],
            shippingMethod: ShippingMethod(id: "standard", label: "Standard", detail: "3-5 days", amount: .zero(.usd)), transactionIdentifier: "t1"
        )
    }

    static func request(_ token: PaymentToken, key: String, cents: Int64 = 4_250) -> ChargeRequest {
        ChargeRequest(
            tokenID: token.id, amount: Money(minorUnits: cents, currency: .usd), idempotencyKey: key, orderNumber: "SF-0000\(key.suffix(2))",
            customerID: "ssh:SHA256:contract")
    }

    @Test("a vaulted card keeps no number and is charged once per key", arguments: Kind.allCases)
    func vaultAndChargeOnce(kind: Kind) async throws {
        try await Harness.with(kind) { harness in
            let method = try await harness.provider.vault(try Self.card("4242424242424242"), forCustomer: "ssh:SHA256:contract")
            #expect(method.lastFour == "4242")
            #expect(method.network == .visa)
            #expect(method.expiry == CardExpiry(month: 12, year: 2034))
            #expect(!method.id.contains("4242424242424242"), "the id names the card, never by its number")
            #expect(harness.provider.canCharge(method))

            let token = try await harness.provider.createToken(for: Self.payment(with: method))
            let key = "order-\(UUID().uuidString)-01"
            let first = try await harness.processor.charge(Self.request(token, key: key))
            #expect(first.outcome == .succeeded)
            #expect(first.amount == Money(minorUnits: 4_250, currency: .usd))
            let again = try await harness.processor.charge(Self.request(token, key: key))
            #expect(again.outcome == .succeeded, "the same key answers with the first result")
            #expect(try await harness.succeededCharges(key) == 1, "and moves money once")
            #expect(try await harness.processor.recordedCharge(forKey: key)?.outcome == .succeeded)
        }
    }

    @Test("a card that declines when charged is declined, and recorded so", arguments: Kind.allCases)
    func declinedWhenCharged(kind: Kind) async throws {
        try await Harness.with(kind) { harness in
            let method = try await harness.provider.vault(try Self.card(harness.declinesWhenCharged), forCustomer: "guest")
            let token = try await harness.provider.createToken(for: Self.payment(with: method))
            let key = "order-\(UUID().uuidString)-02"
            #expect(try await harness.processor.charge(Self.request(token, key: key)).outcome == .declined(.generic))
            #expect(try await harness.processor.recordedCharge(forKey: key)?.outcome == .declined(.generic))
            #expect(try await harness.succeededCharges(key) == 0)
        }
    }

    @Test("a voided key is never charged afterwards", arguments: Kind.allCases)
    func voidWins(kind: Kind) async throws {
        try await Harness.with(kind) { harness in
            let method = try await harness.provider.vault(try Self.card("4242424242424242"), forCustomer: "guest")
            let token = try await harness.provider.createToken(for: Self.payment(with: method))
            let key = "order-\(UUID().uuidString)-03"
            #expect(try await harness.processor.recordedCharge(forKey: key) == nil, "nothing is recorded for a key never charged")
            #expect(try await harness.processor.void(key: key, amount: Money(minorUnits: 4_250, currency: .usd)).outcome == .declined(.voided))
            #expect(try await harness.processor.charge(Self.request(token, key: key)).outcome == .declined(.voided), "a late charge gets the void")
            #expect(try await harness.succeededCharges(key) == 0)
        }
    }
}
