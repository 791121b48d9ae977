import StorefrontUI

/// What the terminal can show of a product's picture, from what the screen found and what the environment says.
enum PictureCapabilities {
    /// Names how pictures are drawn where the terminal cannot be asked: `art` or `mosaic`.
    static let variable = "STOREFRONT_PICTURES"

    /// A mosaic where frames are written by the shop's encoder in 256 colours in a UTF-8 terminal; the art elsewhere
    /// (`NO_COLOR` and `--theme mono` give monochrome, 8 colours cannot tell a picture's shades). `STOREFRONT_PICTURES`
    /// may ask for the art anywhere, and for a mosaic only where one can be drawn.
    static func support(colorMode: ColorMode, charset: Charset, writesDirectly: Bool, environment: [String: String]) -> PictureSupport {
        let canDraw = writesDirectly && charset == .unicode && (colorMode == .color256 || colorMode == .color256Light)
        switch environment[variable].flatMap(PictureSupport.init(rawValue:)) {
        case .art: return .art
        case .mosaic, nil: return canDraw ? .mosaic : .art
        }
    }
}
