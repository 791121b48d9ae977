/// Waits for a server that binds in its own task to say which port it listens on, or to end without one.
///
/// Order of calls: make one → hand `bound` to the server as its listening callback → `serve` its `run`.
package struct BoundPort: Sendable {
    private let ports: AsyncStream<Int?>
    private let continuation: AsyncStream<Int?>.Continuation

    package init() {
        (ports, continuation) = AsyncStream.makeStream(of: Int?.self)
    }

    /// The server's listening callback.
    package func bound(_ port: Int) { continuation.yield(port) }

    /// Runs `run` as a task; returns it with the bound port, or with why the server never listened.
    package func serve(_ run: @escaping @Sendable () async throws -> Void) async -> (serving: Task<Void, any Error>, port: Result<Int, Failure>) {
        let continuation = continuation
        let serving = Task {
            defer { continuation.yield(nil) }
            try await run()
        }
        var events = ports.makeAsyncIterator()
        if let port = await events.next() ?? nil { return (serving, .success(port)) }
        let failure: String =
            switch await serving.result {
            case .failure(let error): "\(error)"
            case .success: "it stopped"
            }
        return (serving, .failure(Failure(description: failure)))
    }

    /// Why a server never listened.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }
}
