import Foundation
import StorefrontCore

/// Runs the shop without a terminal: keys in, one frame per published state out.
///
/// Order of calls: init (lays out the first frame at `size`) → `press`/`send`, each of which
/// waits for the view model's effects to settle → read `frame` or the frames handed to `onFrame`.
@MainActor
public final class HeadlessDriver {
    public private(set) var size: Size
    public let charset: Charset
    public private(set) var viewModel: StorefrontViewModel!
    private let keys = KeyQueue()
    private let onFrame: (StorefrontState, Frame) -> Void

    public init(dependencies: StorefrontDependencies, size: Size, charset: Charset = .unicode, onFrame: @escaping (StorefrontState, Frame) -> Void = { _, _ in }) {
        self.size = size
        self.charset = charset
        self.onFrame = onFrame
        viewModel = StorefrontViewModel(dependencies: dependencies) { [weak self] state in
            guard let self else { return }
            self.onFrame(state, layout(state, self.size, charset: self.charset))
        }
        viewModel.send(.viewportChanged(listRows: Layout.listRows(for: size)))
    }

    public var state: StorefrontState { viewModel.state }

    /// The frame for the current state at the current size.
    public var frame: Frame { layout(viewModel.state, size, charset: charset) }

    /// Decodes `key` against the state it will act on and sends its action; keys that mean nothing there are ignored.
    public func press(_ key: Key, settle: Bool = true) async {
        keys.enqueue(key, into: viewModel)
        if settle { await self.settle() }
    }

    public func send(_ action: Action, settle: Bool = true) async {
        viewModel.send(action)
        if settle { await self.settle() }
    }

    /// Waits for every effect in flight, handling keys that were waiting on them.
    public func settle() async {
        repeat {
            await viewModel.settled()
            keys.drain(into: viewModel)
        } while !keys.isEmpty && viewModel.isAcceptingInput
        await viewModel.settled()
    }

    /// A new terminal size: the list window follows and a frame is drawn at the new size.
    public func resize(to newSize: Size) async {
        size = newSize
        viewModel.send(.viewportChanged(listRows: Layout.listRows(for: newSize)))
        onFrame(viewModel.state, frame)
        await viewModel.settled()
    }
}

