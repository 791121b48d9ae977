import Dispatch
import StorefrontCore
import StorefrontUI

/// The program's backend in a real terminal: frames go to curses, once per burst of events.
@MainActor
final class NCursesBackend: TerminalBackend {
    private let screen: NCursesScreen
    /// False once the session ended and the terminal is restored: the one guard against drawing after that.
    var isOpen = true

    init(screen: NCursesScreen) {
        self.screen = screen
    }

    var size: Size { screen.size }
    var charset: Charset { screen.charset }

    /// Work is queued behind the events already waiting on the main queue, so a burst draws once.
    var timing: FrameTiming {
        .perBurst { work in
            DispatchQueue.main.async { MainActor.assumeIsolated { work() } }
        }
    }

    func draw(_ frame: Frame, for state: StorefrontState) {
        guard isOpen else { return }
        screen.draw(frame)
    }
}
