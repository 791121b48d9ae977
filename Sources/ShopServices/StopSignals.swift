import Dispatch
import Foundation
import LiveObjects

/// Turns SIGTERM and SIGINT into an awaited value instead of ending the process.
public final class StopSignals {
    private let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    public init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        signals = stream
        sources = [SIGTERM, SIGINT].map { number in
            // Dispatch needs the default action off; session processes get it back (POSIX_SPAWN_SETSIGDEF).
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    public func next() async -> Int32 {
        for await number in signals { return number }
        return SIGTERM
    }
}

extension StopSignals: LiveObject {}
