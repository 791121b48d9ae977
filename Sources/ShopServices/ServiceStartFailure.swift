/// Why a front or a worker could not start, with what to tell the operator; the executable turns each kind into its
/// exit code (docs/exit-codes.md).
public struct ServiceStartFailure: Error, CustomStringConvertible {
    public enum Kind: Sendable {
        /// A setting cannot be used (78).
        case configuration
        /// The address cannot be listened on (69).
        case cannotListen
        /// A file it must write cannot be written (73).
        case cannotCreate
        /// The system would not start a process (71).
        case system
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
