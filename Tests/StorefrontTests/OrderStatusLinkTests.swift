import Crypto
import Foundation
import ShopIdentity
import ShopModels
import Testing

/// A receipt's link to its order: signed under the code key, for 90 days from the order, and refused altered.
@Suite("Order status links")
struct OrderStatusLinkTests {
    let links = OrderStatusLinks(codeKey: SymmetricKey(data: Data(repeating: 1, count: 32)), origin: "https://shop.example/")
    let placed = Date(timeIntervalSince1970: 1_796_000_000)

    var order: Order {
        Order(
            number: "SF-000042", placedAt: placed, lines: [], totals: CartTotals(subtotal: .zero(.usd), shipping: .zero(.usd), tax: .zero(.usd)),
            status: .paid, paymentDescription: "", shippingMethodLabel: "", shipTo: "")
    }

    func parts(_ link: String) throws -> (number: String, expires: String, signature: String) {
        let match = try #require(link.firstMatch(of: /^https:\/\/shop\.example\/order\/([^?]+)\?e=(\d+)&s=([A-Za-z0-9_-]{43})$/), "\(link)")
        return (String(match.1), String(match.2), String(match.3))
    }

    @Test func aLinkWorksUntilItsEndAndOnlyAsWritten() throws {
        let (number, expires, signature) = try parts(links.link(for: order))
        #expect(Double(expires) == placed.timeIntervalSince1970 + OrderStatusLinks.lifetime)
        #expect(links.check(number: number, expires: expires, signature: signature, now: placed) == .valid)
        let end = placed.addingTimeInterval(OrderStatusLinks.lifetime)
        #expect(links.check(number: number, expires: expires, signature: signature, now: end) == .expired)
        #expect(links.check(number: "SF-000043", expires: expires, signature: signature, now: placed) == .invalid)
        #expect(links.check(number: number, expires: String(Int(expires)! + 1), signature: signature, now: placed) == .invalid)
        #expect(links.check(number: number, expires: expires, signature: String(signature.reversed()), now: placed) == .invalid)
        #expect(links.check(number: number, expires: "-1", signature: signature, now: placed) == .invalid)
        #expect(links.check(number: number, expires: expires, signature: signature + "A", now: placed) == .invalid)
        #expect(links.check(number: String(repeating: "9", count: 41), expires: expires, signature: signature, now: placed) == .invalid)
        // Another shop's key makes other links.
        let other = OrderStatusLinks(codeKey: SymmetricKey(data: Data(repeating: 2, count: 32)), origin: "https://shop.example")
        #expect(other.check(number: number, expires: expires, signature: signature, now: placed) == .invalid)
    }
}
