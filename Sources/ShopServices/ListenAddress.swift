/// Where a front listens: `HOST:PORT`, `[IPv6]:PORT`.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT`; the port must be 0 to 65535 (0 picks a free one).
    public init(parsing text: String) throws(ListenAddressError) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw ListenAddressError(description: "\"\(text)\" is not HOST:PORT (such as 127.0.0.1:8088)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ListenAddressError(description: "\"\(text)\" names no host (such as 127.0.0.1:8088)") }
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Text that is not `HOST:PORT`.
public struct ListenAddressError: Error, CustomStringConvertible {
    public var description: String
}
