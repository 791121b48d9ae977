/// One thing a host needs to serve, and whether it has it: what `/readyz` answers with.
public struct ReadinessCheck: Hashable, Sendable, Codable {
    /// `database`, `payments`, `sessions`.
    public var name: String
    public var isReady: Bool
    /// In words for the operator: what was found, or what is wrong.
    public var detail: String

    public init(name: String, isReady: Bool, detail: String) {
        self.name = name
        self.isReady = isReady
        self.detail = detail
    }
}
