import StorefrontUI

/// What the terminal can show of a product's picture, from what the screen found, what the terminal answered and
/// what the environment says.
enum PictureCapabilities {
    /// Names how pictures are drawn where the terminal cannot be asked: `art`, `mosaic`, `sixel`, `kitty` or `iterm2`.
    static let variable = "STOREFRONT_PICTURES"

    /// Pixels where the terminal draws them: kitty's protocol in kitty and Ghostty (`TERM` or `KITTY_WINDOW_ID` say so),
    /// iTerm2's inline images in iTerm2 and WezTerm (`TERM_PROGRAM`, or `LC_TERMINAL` where another program passed it on), sixel
    /// where the terminal's device attributes (DA1) list 4; else a mosaic where frames are written by the shop's
    /// encoder in 256 colours in a UTF-8 terminal; else the art (`NO_COLOR` and `--theme mono` give monochrome, 8
    /// colours cannot tell a picture's shades). Inside tmux or screen, which pass no pixels on, never pixels unless asked.
    /// `STOREFRONT_PICTURES` may ask for any of them; pixels and mosaics only where the shop writes the frames.
    static func support(
        colorMode: ColorMode, charset: Charset, writesDirectly: Bool, environment: [String: String], deviceAttributes: [Int] = []
    ) -> PictureSupport {
        guard writesDirectly, charset == .unicode, colorMode != .monochrome else { return .art }
        let canMosaic = colorMode == .color256 || colorMode == .color256Light
        switch environment[variable].flatMap(PictureSupport.init(rawValue:)) {
        case .art: return .art
        case .sixel: return .sixel
        case .kitty: return .kitty
        case .iterm2: return .iterm2
        case .mosaic: return canMosaic ? .mosaic : .art
        case nil:
            let term = environment["TERM"] ?? ""
            let multiplexed = environment["TMUX"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux")
            if !multiplexed, term == "xterm-kitty" || term == "xterm-ghostty" || environment["KITTY_WINDOW_ID"] != nil { return .kitty }
            let program = environment["TERM_PROGRAM"] ?? environment["LC_TERMINAL"] ?? ""
            if !multiplexed, ["iTerm.app", "iTerm2", "WezTerm"].contains(program) { return .iterm2 }
            if !multiplexed, deviceAttributes.contains(4) { return .sixel }
            return canMosaic ? .mosaic : .art
        }
    }
}
