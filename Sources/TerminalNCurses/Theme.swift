import StorefrontUI

/// How the terminal shows style roles.
public enum ColorMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// 256 colours on the terminal's own background.
    case color256
    /// The 8 basic colours.
    case color8
    /// Attributes only (bold, reverse, underline, dim): `NO_COLOR`, `--theme mono`, or no colours.
    case monochrome

    public var description: String { rawValue }
}

/// What the user asked for; `auto` picks from the terminal's abilities and `NO_COLOR`.
public enum ThemePreference: String, Sendable, CaseIterable {
    case auto, color, mono
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
            }
        }
    }

    /// Picks the mode: a non-empty `NO_COLOR` or `mono` wins, then what the terminal can show.
    static func mode(preference: ThemePreference, environment: [String: String], hasColors: Bool, colors: Int) -> ColorMode {
        if preference == .mono || !(environment["NO_COLOR"] ?? "").isEmpty || !hasColors { return .monochrome }
        return colors >= 256 ? .color256 : .color8
    }
}
