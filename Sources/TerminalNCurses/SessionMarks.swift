import StorefrontUI

/// The private sequences a session writes for what reads its output (a recorder, the web front), as its environment
/// asks; terminals ignore them.
struct SessionMarks {
    /// `settledMarker` after the start and after every key, once all is drawn (ticks stop: a recording is the same
    /// every time).
    var settled = false
    /// Forms bracketed by `privateBegins` and `privateEnds`.
    var privateForms = false
    /// `firstScreenMarker` once, when the first screen is whole.
    var firstScreen = false

    init(_ environment: [String: String]) {
        settled = environment[TerminalSession.settledMarkerVariable] != nil
        privateForms = environment[TerminalSession.privateMarkersVariable] != nil
        firstScreen = environment[TerminalSession.firstScreenMarkerVariable] != nil
    }

    /// Writes `marker` once what was just handled has settled: its effects answered and drawn, then its pictures (every
    /// one asked for, so a recording is the same every time; or only those the screen shows, not those asked for
    /// ahead) drawn too. `before`, given the frame then on the screen, writes what goes just ahead of the marker.
    @MainActor func write(
        _ marker: String, whenSettled program: Program, on screen: any SessionScreen, allPictures: Bool,
        before: @escaping @MainActor (Frame) -> String? = { _ in nil }
    ) {
        Task { @MainActor in
            await program.viewModel.settled()
            program.drawIfNeeded()
            if allPictures { await program.picturesSettled() } else { await program.shownPicturesSettled() }
            program.drawIfNeeded()
            screen.write((program.frameOnScreen.flatMap(before) ?? "") + marker)
        }
    }
}
