import ShopModels
import ShopPorts

/// A back office a test did not set up: every call fails the test.
public struct UnimplementedBackOffice: BackOffice {
    public init() {}

    private func fail<T>(_ method: String) throws(BackOfficeError) -> T {
        unimplemented("BackOffice", method)
        throw .change(.storage("BackOffice is not set up in this test"))
    }

    public func ship(_ number: String, _ parcel: Shipment, by actor: OrderActor, expecting expected: OrderStatus?) throws(BackOfficeError) -> Order {
        try fail("ship")
    }
    public func markDelivered(_ number: String, by actor: OrderActor, expecting expected: OrderStatus?) throws(BackOfficeError) -> Order {
        try fail("markDelivered")
    }
    public func refund(_ number: String, _ ask: RefundAsk, by actor: OrderActor, expecting expected: OrderStatus?) throws(BackOfficeError) -> Order {
        try fail("refund")
    }
    public func cancel(_ number: String, reason: String, by actor: OrderActor, expecting expected: OrderStatus?) throws(BackOfficeError) -> Order {
        try fail("cancel")
    }
    public func finishPendingRefunds() throws -> [RefundRecovery] { try fail("finishPendingRefunds") }
    public func dossier(_ number: String) throws(BackOfficeError) -> OrderDossier { try fail("dossier") }
    public func queue(_ filter: OrderQueueFilter, offset: Int, limit: Int) throws(BackOfficeError) -> OrderQueuePage { try fail("queue") }
    public func salesSummary() throws(BackOfficeError) -> SalesSummary { try fail("salesSummary") }
    public func stockLevels() throws(BackOfficeError) -> [StockLevel] { try fail("stockLevels") }
    public func setStock(of product: ProductID, onHand: Int) throws(BackOfficeError) -> StockLevel { try fail("setStock") }
    public func adjustStock(of product: ProductID, by change: Int) throws(BackOfficeError) -> StockLevel { try fail("adjustStock") }
}
