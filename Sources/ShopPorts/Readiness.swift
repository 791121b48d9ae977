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

/// A readiness check by name: what `/readyz` runs, and what it names when the check does not answer in time.
public struct ReadinessProbe: Sendable {
    public var name: String
    public var run: @Sendable () async -> ReadinessCheck

    public init(_ name: String, _ run: @escaping @Sendable () async -> ReadinessCheck) {
        self.name = name
        self.run = run
    }
}
