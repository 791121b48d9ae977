import CNCurses

/// Runs `body` on the main queue and returns after it, as `DispatchQueue.main.sync` does, through `dispatch_sync_f`:
/// the Swift form makes and copies a block for every call, on the path of every key a waiting thread hands over.
func syncOnMainQueue(_ body: () -> Void) {
    withoutActuallyEscaping(body) { body in
        var call = body
        withUnsafeMutablePointer(to: &call) { pointer in
            sf_sync_on_main_queue(pointer) { context in
                context.unsafelyUnwrapped.assumingMemoryBound(to: (() -> Void).self).pointee()
            }
        }
    }
}
