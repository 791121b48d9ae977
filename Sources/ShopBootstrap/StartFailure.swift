/// Why a shop session, a front or a worker could not start, with what to tell the operator; the executable turns each
/// kind into its exit code (docs/exit-codes.md).
public struct ServiceStartFailure: Error, CustomStringConvertible {
    public enum Kind: Sendable {
        /// What a server handed a session is not what it would make (64).
        case usage
        /// Orders or wallets an earlier stop left could not be read or settled (74).
        case io
        /// A setting cannot be used (78).
        case configuration
        /// The address cannot be listened on (69).
        case cannotListen
        /// A file it must write cannot be written (73).
        case cannotCreate
        /// The system would not start a process (71).
        case system
        /// The visitor may not come in: an SSH key taken off its account (77).
        case refused
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    public static func usage(_ why: String) -> Self { Self(.usage, why) }
    public static func configuration(_ why: String) -> Self { Self(.configuration, why) }
    public static func cannotSettle(_ why: String) -> Self { Self(.io, why) }
}
