import StorefrontCore
import StorefrontUI

/// Drives a whole shop headlessly for tests: keys or actions in, states and frames recorded.
///
/// Effects are awaited through the view model's `settled()`, never by sleeping; with a
/// `TestClock` injected into the sandbox, pass `settle: false` and advance the clock instead.
@MainActor
public final class ScriptedDriver {
    public let renderer = FakeRenderer()
    public let headless: HeadlessDriver
    public let stack: TestStack

    public convenience init(stack: TestStack = TestStack(), size: Size = Size(columns: 80, rows: 24), charset: Charset = .unicode) {
        self.init(stack: stack, dependencies: stack.dependencies, size: size, charset: charset)
    }

    /// Drives the shop with `dependencies` as given, e.g. a stack's with a cart store added.
    public convenience init(dependencies: StorefrontDependencies, size: Size = Size(columns: 80, rows: 24), charset: Charset = .unicode) {
        self.init(stack: TestStack(), dependencies: dependencies, size: size, charset: charset)
    }

    private init(stack: TestStack, dependencies: StorefrontDependencies, size: Size, charset: Charset) {
        self.stack = stack
        let renderer = self.renderer
        headless = HeadlessDriver(dependencies: dependencies, size: size, charset: charset) { state, frame in
            renderer.render(state, frame)
        }
    }

    public var state: StorefrontState { headless.state }
    public var frameText: String { headless.frame.text }
    public var viewModel: StorefrontViewModel { headless.viewModel }

    /// Presses keys given as a script, e.g. "enter,a,c,enter,p,enter".
    public func press(_ script: String, settle: Bool = true) async throws {
        for key in try Key.script(script) {
            await headless.press(key, settle: settle)
        }
    }

    public func press(_ keys: Key..., settle: Bool = true) async {
        for key in keys { await headless.press(key, settle: settle) }
    }

    public func send(_ actions: Action..., settle: Bool = true) async {
        for action in actions { await headless.send(action, settle: settle) }
    }

    public func settle() async { await headless.settle() }

    public func resize(to size: Size) async { await headless.resize(to: size) }
}
