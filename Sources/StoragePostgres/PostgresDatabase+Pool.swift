extension PostgresDatabase {
    /// How many connections this process may hold, and how long an idle one is kept.
    public struct Pool: Sendable {
        public var maximumConnections: Int
        /// A connection unused this long is closed, so a shopper who is only looking holds none.
        public var idleTimeout: Duration
        /// While the server is down, calls fail at once, and one call at most this often tries it again.
        public var probeInterval: Duration
        public init(maximumConnections: Int, idleTimeout: Duration, probeInterval: Duration = .seconds(1)) {
            self.maximumConnections = maximumConnections
            self.idleTimeout = idleTimeout
            self.probeInterval = probeInterval
        }

        /// One shopper's process: one connection at a time, given back after two idle seconds.
        public static let session = Pool(maximumConnections: 1, idleTimeout: .seconds(2))
        /// A worker process's sessions, sharing one pool: a few connections, given back after two idle seconds.
        public static let worker = Pool(maximumConnections: 4, idleTimeout: .seconds(2))
        /// A command or `serve` itself: a few connections, kept while work comes.
        public static let command = Pool(maximumConnections: 4, idleTimeout: .seconds(30))
    }
}
