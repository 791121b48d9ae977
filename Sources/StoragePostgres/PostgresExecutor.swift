import Dispatch
import LiveObjects

/// A serial queue of its own for the database's calls and the pool's background work.
///
/// Swift's cooperative threads are one per core: on a busy two-core host, work that holds them (a
/// render, a synchronous child process) would delay a call's answer past its deadline and make a
/// working database look down. Nothing here blocks: jobs are queued and run as they come.
final class PostgresExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = PostgresExecutor()
    private let queue = DispatchQueue(label: "storefront.postgres.calls")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension PostgresExecutor: LiveObject {}
