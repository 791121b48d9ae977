extension Duration {
    /// The duration in whole milliseconds, the rest dropped: what `poll` takes and what a recording's times count in.
    public var wholeMilliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
