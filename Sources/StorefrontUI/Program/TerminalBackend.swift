import LiveObjects
import StorefrontCore

/// Where the program's frames go: ncurses in a terminal, a recorder in tests and `storefront headless`.
@MainActor
public protocol TerminalBackend: AnyObject {
    /// The screen's size now.
    var size: Size { get }
    var charset: Charset { get }
    /// How the terminal shows products' pictures.
    var pictures: PictureSupport { get }
    /// A cell's size in pixels, for pictures drawn as pixels.
    var cellPixels: CellPixels { get }
    /// When frames are drawn.
    var timing: FrameTiming { get }
    /// Shows `frame`, laid out for `state`, which is lent: a backend sends no action from here.
    func draw(_ frame: Frame, for state: StorefrontState)
}

extension TerminalBackend {
    /// Art, unless the backend says it draws more.
    public var pictures: PictureSupport { .art }
    public var cellPixels: CellPixels { .usual }
}

/// When a backend draws.
public enum FrameTiming {
    /// A frame for every published state, at once: what tests record and compare.
    case everyState
    /// One frame per burst: `schedule` runs its work after the events queued now, so keys that
    /// arrive together, and the effects they finish, are drawn as one frame.
    case perBurst(schedule: @MainActor (_ work: @escaping @MainActor () -> Void) -> Void)
}

/// A backend that hands each frame to a closure, for `storefront headless` and the benchmarks.
@MainActor
public final class HeadlessBackend: TerminalBackend {
    public var size: Size
    public let charset: Charset
    public let pictures: PictureSupport
    public var timing: FrameTiming { .everyState }
    private let onFrame: (StorefrontState, Frame) -> Void

    public init(
        size: Size, charset: Charset = .unicode, pictures: PictureSupport = .art, onFrame: @escaping (StorefrontState, Frame) -> Void = { _, _ in }
    ) {
        self.size = size
        self.charset = charset
        self.pictures = pictures
        self.onFrame = onFrame
    }

    public func draw(_ frame: Frame, for state: StorefrontState) {
        onFrame(state, frame)
    }
}

extension HeadlessBackend: LiveObject {}
