import StorefrontUI

/// How the terminal shows style roles.
public enum ColorMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// 256 colours on the terminal's own background, a dark one.
    case color256
    /// 256 colours chosen for a light background (black on white, as xterm and macOS Terminal start).
    case color256Light
    /// The 8 basic colours, on a dark background.
    case color8
    /// The 8 basic colours, on a light background.
    case color8Light
    /// Attributes only (bold, reverse, underline, dim): `NO_COLOR`, `--theme mono`, or no colours.
    case monochrome

    public var description: String { rawValue }
}

/// What the user asked for: `auto` asks the terminal for its background (OSC 11, then `COLORFGBG`) and picks the
/// palette for it, and the colours from the terminal's abilities and `NO_COLOR`; `dark` and `light` force a palette
/// (`color` is `dark`, as it was called first); `mono` uses attributes only.
public enum ThemePreference: String, Sendable, CaseIterable {
    case auto, dark, light, mono, color
}

/// The background a palette is made for.
public enum Background: String, Sendable, Equatable {
    case dark, light
}

/// A role's look in one colour mode: foreground and background (-1 is the terminal default) and attributes.
struct RoleLook: Hashable {
    var foreground: Int16 = -1
    var background: Int16 = -1
    var bold = false
    var reverse = false
    var underline = false
    var dim = false
}

/// The storefront's palette, per colour mode.
enum Theme {
    static func look(for role: StyleRole, in mode: ColorMode) -> RoleLook {
        switch mode {
        case .color256:
            switch role {
            case .normal: return RoleLook()
            case .header: return RoleLook(foreground: 231, background: 24, bold: true)
            case .title: return RoleLook(foreground: 153, bold: true)
            case .dim: return RoleLook(foreground: 245)
            case .accent: return RoleLook(foreground: 214)
            case .price: return RoleLook(foreground: 114)
            case .selection: return RoleLook(foreground: 231, background: 25, bold: true)
            case .error: return RoleLook(foreground: 203, bold: true)
            case .success: return RoleLook(foreground: 114, bold: true)
            case .art: return RoleLook(foreground: 180)
            case .border: return RoleLook(foreground: 240)
            case .key: return RoleLook(foreground: 75, bold: true)
            case .qrCode: return RoleLook(foreground: 16, background: 231)
            // Its colours are each cell's own (FrameEncoder); drawn by curses, it is plain.
            case .picture: return RoleLook()
            }
        case .color256Light:
            // Each text colour keeps 4.5:1 or more on white (WCAG AA); the test computes it from xterm's RGB values.
            switch role {
            case .normal: return RoleLook()
            case .header: return RoleLook(foreground: 231, background: 24, bold: true)
            case .title: return RoleLook(foreground: 24, bold: true)
            case .dim: return RoleLook(foreground: 241)
            case .accent: return RoleLook(foreground: 130)
            case .price: return RoleLook(foreground: 28)
            case .selection: return RoleLook(foreground: 231, background: 25, bold: true)
            case .error: return RoleLook(foreground: 160, bold: true)
            case .success: return RoleLook(foreground: 28, bold: true)
            case .art: return RoleLook(foreground: 94)
            case .border: return RoleLook(foreground: 245)
            case .key: return RoleLook(foreground: 25, bold: true)
            case .qrCode: return RoleLook(foreground: 16, background: 231)
            // Its colours are each cell's own (FrameEncoder); drawn by curses, it is plain.
            case .picture: return RoleLook()
            }
        case .color8Light:
            // Yellow, green and cyan are the ones a white background washes out.
            switch role {
            case .normal: return RoleLook()
            case .header: return RoleLook(foreground: 7, background: 4, bold: true)
            case .title: return RoleLook(bold: true)
            case .dim: return RoleLook(dim: true)
            case .accent: return RoleLook(foreground: 5)
            case .price: return RoleLook(foreground: 4)
            case .selection: return RoleLook(foreground: 7, background: 4, bold: true)
            case .error: return RoleLook(foreground: 1, bold: true)
            case .success: return RoleLook(foreground: 4, bold: true)
            case .art: return RoleLook(foreground: 5)
            case .border: return RoleLook(dim: true)
            case .key: return RoleLook(foreground: 4, bold: true)
            case .qrCode: return RoleLook(foreground: 0, background: 7)
            // Its colours are each cell's own (FrameEncoder); drawn by curses, it is plain.
            case .picture: return RoleLook()
            }
        case .color8:
            switch role {
            case .normal: return RoleLook()
            case .header: return RoleLook(foreground: 7, background: 4, bold: true)
            case .title: return RoleLook(bold: true)
            case .dim: return RoleLook(dim: true)
            case .accent: return RoleLook(foreground: 3)
            case .price: return RoleLook(foreground: 2)
            case .selection: return RoleLook(foreground: 7, background: 4, bold: true)
            case .error: return RoleLook(foreground: 1, bold: true)
            case .success: return RoleLook(foreground: 2, bold: true)
            case .art: return RoleLook(foreground: 6)
            case .border: return RoleLook(dim: true)
            case .key: return RoleLook(foreground: 6, bold: true)
            case .qrCode: return RoleLook(foreground: 0, background: 7)
            // Its colours are each cell's own (FrameEncoder); drawn by curses, it is plain.
            case .picture: return RoleLook()
            }
        case .monochrome:
            switch role {
            case .normal, .price, .art: return RoleLook()
            case .header: return RoleLook(bold: true, reverse: true)
            case .title, .key, .success: return RoleLook(bold: true)
            case .dim, .border: return RoleLook(dim: true)
            case .accent: return RoleLook(underline: true)
            case .selection: return RoleLook(reverse: true)
            case .error: return RoleLook(bold: true, underline: true)
            // Without colours, reversed: on the usual light-on-dark terminal, dark modules on light.
            case .qrCode: return RoleLook(reverse: true)
            // Its colours are each cell's own (FrameEncoder); drawn by curses, it is plain.
            case .picture: return RoleLook()
            }
        }
    }

    /// Picks the mode: a non-empty `NO_COLOR` or `mono` wins, then what the terminal can show, for `background`.
    static func mode(preference: ThemePreference, environment: [String: String], hasColors: Bool, colors: Int, background: Background = .dark)
        -> ColorMode
    {
        if preference == .mono || !(environment["NO_COLOR"] ?? "").isEmpty || !hasColors { return .monochrome }
        let light = preference == .light || (preference == .auto && background == .light)
        if colors >= 256 { return light ? .color256Light : .color256 }
        return light ? .color8Light : .color8
    }
}
