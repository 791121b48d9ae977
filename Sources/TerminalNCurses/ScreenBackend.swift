import Dispatch
import LiveObjects
import StorefrontCore
import StorefrontUI

/// A screen frames are drawn on: curses' on the process's own terminal, or a worker's session's on its pty.
@MainActor
protocol DrawingScreen: AnyObject {
    var size: Size { get }
    var charset: Charset { get }
    var colorMode: ColorMode { get }
    /// A cell's size in pixels, as the terminal tells it; `CellPixels.usual` where it does not.
    var cellPixels: CellPixels { get }
    /// The shop's own encoder draws the frames (curses' drawing knows only the roles' colours).
    var writesDirectly: Bool { get }
    func draw(_ frame: Frame)
}

extension NCursesScreen: DrawingScreen {}
extension DescriptorScreen: DrawingScreen {}

/// The program's backend in a real terminal: frames go to its screen, once per burst of events.
@MainActor
final class ScreenBackend: TerminalBackend {
    private let screen: any DrawingScreen
    /// False once the session ended and the terminal is restored: the one guard against drawing after that.
    var isOpen = true

    init(screen: any DrawingScreen, environment: [String: String] = [:], deviceAttributes: [Int] = []) {
        self.screen = screen
        pictures = PictureCapabilities.support(
            colorMode: screen.colorMode, charset: screen.charset, writesDirectly: screen.writesDirectly, environment: environment,
            deviceAttributes: deviceAttributes)
    }

    var cellPixels: CellPixels { screen.cellPixels }

    var size: Size { screen.size }
    var charset: Charset { screen.charset }
    /// A mosaic where the encoder writes 256 colours, the art elsewhere, pixels where the terminal says it draws them.
    private(set) var pictures: PictureSupport
    /// Until when an answer to the questions asked at the start may still change `pictures`; nil when none were asked.
    private var learnsUntil: ContinuousClock.Instant?

    /// Asks the terminal on `screen` what it draws (`TerminalQuestions.pictures`) where nothing has said so; its
    /// answers come among the keys, for `learn`, until the deadline.
    func ask(_ screen: any SessionScreen, environment: [String: String]) {
        guard PictureCapabilities.asks(current: pictures, environment: environment) else { return }
        screen.write(TerminalQuestions.pictures)
        learnsUntil = .now + TerminalQuestions.deadline
    }

    /// Takes an answer the terminal gave; true (and said in the log) when pictures are drawn another way from now on.
    func learn(_ answer: TerminalAnswer, log: (String) -> Void) -> Bool {
        guard let until = learnsUntil, ContinuousClock.now <= until else { return false }
        let learned = PictureCapabilities.learned(answer, current: pictures)
        guard learned != pictures else { return false }
        pictures = learned
        log("pictures \(learned.rawValue), as the terminal answered")
        return true
    }

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

extension ScreenBackend: LiveObject {}

/// A session's screen as its events use it: curses' on the process's own terminal, or a worker's on a descriptor.
@MainActor
protocol SessionScreen: AnyObject {
    func readKeys() -> [NCursesScreen.Input]
    /// Bytes of an escape sequence cut by a read wait for the rest; `flushKeys` reads them as typed.
    var waitsForEscape: Bool { get }
    func flushKeys() -> [NCursesScreen.Input]
    /// The terminal went away (its other side closed).
    var isGone: Bool { get }
    func invalidate()
    func adoptTerminalSize() -> Size
    func restore()
    /// Writes `text` as is, in order with the frames.
    func write(_ text: String)
    var colorMode: ColorMode { get }
}
