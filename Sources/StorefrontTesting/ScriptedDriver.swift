import LiveObjects
import StorefrontCore
import StorefrontUI

/// Drives a whole shop headlessly for tests: keys or actions in, states and frames recorded.
///
/// Effects are awaited through the view model's `settled()`, never by sleeping; with a
/// `TestClock` injected into the sandbox, pass `settle: false` and advance the clock instead.
@MainActor
public final class ScriptedDriver {
    public let renderer: FakeRenderer
    /// The same program loop a terminal runs, drawing into `renderer`.
    public let program: Program
    public let stack: TestStack

    /// A shop open at `size`, its first reads answered: the state a shopper's first key meets.
    public convenience init(
        stack: TestStack = TestStack(), size: Size = Size(columns: 80, rows: 24), charset: Charset = .unicode, pictures: PictureSupport = .art
    ) async {
        self.init(stack: stack, dependencies: stack.dependencies, size: size, charset: charset, pictures: pictures)
        await settle()
    }

    /// Drives the shop with `dependencies` as given, e.g. a stack's with a cart repository added. With `settling`
    /// false, only the first reads are waited for, not the pictures the first frame asks for.
    public convenience init(
        dependencies: StorefrontDependencies, size: Size = Size(columns: 80, rows: 24), charset: Charset = .unicode,
        pictures: PictureSupport = .art, settling: Bool = true
    ) async {
        self.init(stack: TestStack(), dependencies: dependencies, size: size, charset: charset, pictures: pictures)
        if settling { await settle() } else { await viewModel.settled() }
    }

    private init(stack: TestStack, dependencies: StorefrontDependencies, size: Size, charset: Charset, pictures: PictureSupport) {
        self.stack = stack
        renderer = FakeRenderer(size: size, charset: charset, pictures: pictures)
        program = Program(dependencies: dependencies, backend: renderer)
    }

    public var state: StorefrontState { program.state }
    public var frameText: String { program.frame.text }
    public var viewModel: StorefrontViewModel { program.viewModel }

    /// Presses keys given as a script, e.g. "enter,a,c,enter,p,enter".
    public func press(_ script: String, settle: Bool = true) async throws {
        for key in try Key.script(script) {
            await program.press(key, settle: settle)
        }
    }

    public func press(_ keys: Key..., settle: Bool = true) async {
        for key in keys { await program.press(key, settle: settle) }
    }

    public func send(_ actions: Action..., settle: Bool = true) async {
        for action in actions { await program.send(action, settle: settle) }
    }

    public func settle() async { await program.settle() }

    /// Waits for work no effect tracks (a sign-in woken from outside) to bring the state to `done`: settles, then
    /// waits for the next frame (every state change draws one), until it holds or `deadline` passes on the wall clock
    /// (long: the whole suite shares the main actor, and a busy machine slows it). False when it never held.
    ///
    /// It never spins: a loop of yields kept the main thread, and so a core of two, busy for the whole wait, which
    /// starved the very work it waited for.
    public func waitUntil(deadline: Duration = .seconds(60), _ done: (StorefrontState) -> Bool) async -> Bool {
        let renderer = renderer
        // The deadline wakes the wait once, whatever frame it is waiting for.
        let alarm = Task { @MainActor in
            try? await Task.sleep(for: deadline)
            renderer.wakeFrameWaiters()
        }
        defer { alarm.cancel() }
        let end = ContinuousClock.now.advanced(by: deadline)
        while ContinuousClock.now < end {
            await settle()
            if done(state) { return true }
            await renderer.nextFrame()
        }
        return done(state)
    }

    /// A new terminal size: the list window follows and a frame is drawn at the new size.
    public func resize(to size: Size) async {
        renderer.size = size
        program.resized()
        await program.settle()
    }
}

extension ScriptedDriver: LiveObject {}
